//! The checks every frame and footer signing input passes before it is encoded.

use std::collections::BTreeSet;

use super::{SigningInputError, SIG_ATTRIBUTE};
use crate::names::{is_attribute_name, is_element_name};

/// Up to this many attributes the duplicate check compares names pairwise without allocating;
/// above it, it collects the names into a set (linear in the names' total length times log).
pub(super) const PAIRWISE_DUPLICATE_CHECK_LIMIT: usize = 32;

/// The checks common to frames and footers: a non-empty key id and algorithm, a non-zero tag
/// length, and attribute (or field) names that are valid, distinct and not `sig`.
pub(super) fn check_common(
    key_id: &str,
    algorithm: &str,
    tag_len: usize,
    attributes: &[(&str, &str)],
) -> Result<(), SigningInputError> {
    if key_id.is_empty() {
        return Err(SigningInputError::EmptyKeyId);
    }
    if algorithm.is_empty() {
        return Err(SigningInputError::EmptyAlgorithm);
    }
    if tag_len == 0 {
        return Err(SigningInputError::ZeroTagLength);
    }
    let pairwise = attributes.len() <= PAIRWISE_DUPLICATE_CHECK_LIMIT;
    let mut seen = (!pairwise).then(BTreeSet::new);
    for (index, &(name, _)) in attributes.iter().enumerate() {
        if name == SIG_ATTRIBUTE {
            return Err(SigningInputError::SigAttribute);
        }
        if !is_attribute_name(name) {
            return Err(SigningInputError::InvalidAttributeName {
                name: name.to_owned(),
            });
        }
        let repeated = if pairwise {
            attributes
                .iter()
                .take(index)
                .any(|&(earlier, _)| same_name(earlier, name))
        } else {
            seen.as_mut().is_some_and(|seen| !seen.insert(name))
        };
        if repeated {
            return Err(SigningInputError::DuplicateAttribute {
                name: name.to_owned(),
            });
        }
    }
    Ok(())
}

/// The element name check of a frame (a footer has no element).
pub(super) fn check_element(element: &str) -> Result<(), SigningInputError> {
    if is_element_name(element) {
        Ok(())
    } else {
        Err(SigningInputError::InvalidElement {
            name: element.to_owned(),
        })
    }
}

/// Whether two names are equal, compared byte by byte in place: names are short, and a call to
/// `memcmp` for each pair costs more than the comparison.
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}
