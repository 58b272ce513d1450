//! The store formats' reading of JSON objects: `seal_parse::json::Fields`, its refusals as
//! [`DocumentError`]s, and the store's own value checks.

use seal_parse::json::{FieldError, FieldErrorKind, Fields};

use super::document_error::{DocumentError, DocumentErrorKind};
use crate::base64url;

impl From<FieldError> for DocumentError {
    fn from(error: FieldError) -> DocumentError {
        let path = error.path();
        match error.kind {
            FieldErrorKind::Missing { name } => {
                DocumentError::new(&error.at, DocumentErrorKind::MissingField { name })
            }
            FieldErrorKind::Unknown { name } => {
                DocumentError::new(&error.at, DocumentErrorKind::UnknownField { name })
            }
            FieldErrorKind::WrongType { expected, .. } => wrong_type(&path, expected),
            FieldErrorKind::NotAnInteger { .. } => {
                DocumentError::new(&path, DocumentErrorKind::NotAnInteger)
            }
            FieldErrorKind::TooMany { max, .. } => {
                DocumentError::new(&path, DocumentErrorKind::TooMany { max })
            }
            // `NotAnObject`, and any refusal added later, as a value of the wrong type.
            _ => wrong_type(&path, "an object"),
        }
    }
}

/// The base64url member `name` of `fields`, decoded to exactly `len` bytes.
pub(crate) fn base64(
    fields: &mut Fields<'_, '_>,
    name: &'static str,
    len: usize,
) -> Result<Vec<u8>, DocumentError> {
    let path = fields.path(name);
    let text = fields.string(name)?;
    let bytes = base64url::decode(text)
        .map_err(|error| DocumentError::new(&path, DocumentErrorKind::Base64(error)))?;
    if bytes.len() != len {
        return Err(DocumentError::new(
            &path,
            DocumentErrorKind::ByteLength {
                expected: len,
                found: bytes.len(),
            },
        ));
    }
    Ok(bytes)
}

pub(crate) fn in_range(value: u64, min: u64, max: u64, path: &str) -> Result<u64, DocumentError> {
    if value < min || value > max {
        return Err(DocumentError::new(
            path,
            DocumentErrorKind::OutOfRange { min, max },
        ));
    }
    Ok(value)
}

pub(crate) fn wrong_type(path: &str, expected: &'static str) -> DocumentError {
    DocumentError::new(path, DocumentErrorKind::WrongType { expected })
}
