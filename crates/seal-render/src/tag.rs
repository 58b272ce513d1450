//! Validated start tags, the building block of every rendered element.

use crate::context::Context;
use crate::escape::escape_into;
use crate::name::{AttributeName, ElementName};
use crate::render_error::RenderError;

/// Name of the attribute that carries a frame's tag; when present it must be last.
pub const SIGNATURE_ATTRIBUTE: &str = "sig";

/// A start tag checked against frame-v1: a valid element name, valid attribute names, no
/// duplicates, `sig` last.
///
/// Writing it gives `<element a="v" ...>` with exactly one space before each attribute and each
/// value escaped in [`Context::Attribute`], so the tag is ASCII and a value can never end early.
/// Approval cards and manifest summaries reuse it to speak the same grammar as frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartTag<'a> {
    element: ElementName<'a>,
    attributes: Vec<(AttributeName<'a>, &'a str)>,
}

impl<'a> StartTag<'a> {
    /// Validates `element` and `attributes` (name, unescaped value), keeping their order.
    ///
    /// # Errors
    /// [`RenderError::InvalidElementName`], [`RenderError::InvalidAttributeName`],
    /// [`RenderError::DuplicateAttribute`] or [`RenderError::SignatureNotLast`].
    pub fn new(element: &'a str, attributes: &[(&'a str, &'a str)]) -> Result<Self, RenderError> {
        let element = ElementName::new(element)?;
        let attributes = attributes
            .iter()
            .map(|&(name, value)| Ok((AttributeName::new(name)?, value)))
            .collect::<Result<Vec<_>, RenderError>>()?;
        let mut names: Vec<&str> = attributes.iter().map(|(n, _)| n.as_str()).collect();
        if let Some(sig) = names.iter().position(|n| *n == SIGNATURE_ATTRIBUTE) {
            if sig + 1 != names.len() {
                return Err(RenderError::SignatureNotLast);
            }
        }
        names.sort_unstable();
        let duplicate = names.windows(2).find_map(|pair| match pair {
            [name, next] if name == next => Some(*name),
            _ => None,
        });
        if let Some(name) = duplicate {
            return Err(RenderError::DuplicateAttribute {
                name: name.to_owned(),
            });
        }
        Ok(StartTag {
            element,
            attributes,
        })
    }

    /// The element name.
    #[must_use]
    pub fn element(&self) -> ElementName<'a> {
        self.element
    }

    /// The attributes in order, values unescaped.
    #[must_use]
    pub fn attributes(&self) -> &[(AttributeName<'a>, &'a str)] {
        &self.attributes
    }

    /// Appends `<element a="v" ...>` to `out`.
    pub fn write(&self, out: &mut String) {
        out.push('<');
        out.push_str(self.element.as_str());
        for (name, value) in &self.attributes {
            out.push(' ');
            out.push_str(name.as_str());
            out.push_str("=\"");
            escape_into(out, value, Context::Attribute);
            out.push('"');
        }
        out.push('>');
    }

    /// Appends the matching end tag `</element>` to `out`.
    pub fn write_end(&self, out: &mut String) {
        out.push_str("</");
        out.push_str(self.element.as_str());
        out.push('>');
    }

    /// Bytes [`StartTag::write`] will append if no value needs escaping; a capacity hint.
    #[must_use]
    pub fn plain_len(&self) -> usize {
        let attrs: usize = self
            .attributes
            .iter()
            .map(|(n, v)| n.as_str().len() + v.len() + 4)
            .sum();
        self.element.as_str().len() + 2 + attrs
    }
}
