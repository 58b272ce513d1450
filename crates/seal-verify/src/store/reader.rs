//! A checked reader over parsed JSON objects: every member read once, unknown members refused.

use seal_parse::json::{Object, Value};

use super::document_error::{DocumentError, DocumentErrorKind};
use crate::base64url;

/// Largest integer the format accepts: 2^53.
const MAX_INTEGER: u64 = 1 << 53;

pub(crate) struct ObjectReader<'v, 'a> {
    object: &'v Object<'a>,
    path: String,
    read: Vec<&'static str>,
}

impl<'v, 'a> ObjectReader<'v, 'a> {
    pub(crate) fn new(value: &'v Value<'a>, path: &str) -> Result<Self, DocumentError> {
        let object = value
            .as_object()
            .ok_or_else(|| wrong_type(path, "an object"))?;
        Ok(ObjectReader {
            object,
            path: path.to_owned(),
            read: Vec::new(),
        })
    }

    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    pub(crate) fn member_path(&self, name: &str) -> String {
        format!("{}.{name}", self.path)
    }

    pub(crate) fn optional(&mut self, name: &'static str) -> Option<&'v Value<'a>> {
        self.read.push(name);
        self.object.get(name)
    }

    pub(crate) fn required(&mut self, name: &'static str) -> Result<&'v Value<'a>, DocumentError> {
        self.optional(name)
            .ok_or_else(|| DocumentError::new(&self.path, DocumentErrorKind::MissingField { name }))
    }

    pub(crate) fn string(&mut self, name: &'static str) -> Result<&'v str, DocumentError> {
        let path = self.member_path(name);
        let value = self.required(name)?;
        value.as_str().ok_or_else(|| wrong_type(&path, "a string"))
    }

    pub(crate) fn bool(&mut self, name: &'static str) -> Result<bool, DocumentError> {
        let path = self.member_path(name);
        let value = self.required(name)?;
        value
            .as_bool()
            .ok_or_else(|| wrong_type(&path, "true or false"))
    }

    pub(crate) fn integer(&mut self, name: &'static str) -> Result<u64, DocumentError> {
        let path = self.member_path(name);
        let value = self.required(name)?;
        integer(value, &path)
    }

    pub(crate) fn array(
        &mut self,
        name: &'static str,
        max: usize,
    ) -> Result<&'v [Value<'a>], DocumentError> {
        let path = self.member_path(name);
        let value = self.required(name)?;
        let items = value
            .as_array()
            .ok_or_else(|| wrong_type(&path, "an array"))?;
        if items.len() > max {
            return Err(DocumentError::new(
                &path,
                DocumentErrorKind::TooMany { max },
            ));
        }
        Ok(items)
    }

    pub(crate) fn base64(
        &mut self,
        name: &'static str,
        len: usize,
    ) -> Result<Vec<u8>, DocumentError> {
        let path = self.member_path(name);
        let text = self.string(name)?;
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

    /// Refuses any member that was not read.
    pub(crate) fn finish(self) -> Result<(), DocumentError> {
        for (name, _) in self.object.iter() {
            if !self.read.contains(&name) {
                return Err(DocumentError::new(
                    &self.path,
                    DocumentErrorKind::UnknownField {
                        name: name.to_owned(),
                    },
                ));
            }
        }
        Ok(())
    }
}

pub(crate) fn integer(value: &Value<'_>, path: &str) -> Result<u64, DocumentError> {
    let number = value
        .as_number()
        .ok_or_else(|| wrong_type(path, "a non-negative integer"))?;
    number
        .as_i64()
        .and_then(|integer| u64::try_from(integer).ok())
        .filter(|integer| *integer <= MAX_INTEGER)
        .ok_or_else(|| DocumentError::new(path, DocumentErrorKind::NotAnInteger))
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
