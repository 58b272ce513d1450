//! Why a manifest cannot be built or read.

use std::fmt;

use seal_parse::json::JsonError;

use crate::path::PathError;

/// Why a manifest was refused. Every rule of spec/manifest-v1.md has its own case; `field` names
/// the JSON member concerned (e.g. `purpose`, `files[2].ranges[0]`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ManifestError {
    /// A line range given with a file's contents ([`ManifestBuilder::file_contents`]) is empty,
    /// starts at 0, or goes past the end of the file.
    ///
    /// [`ManifestBuilder::file_contents`]: crate::ManifestBuilder::file_contents
    LineRange {
        /// The file.
        path: String,
        /// First line asked.
        start: u64,
        /// Last line asked.
        end: u64,
        /// Lines in the file.
        lines: u64,
    },
    /// A required field was not set (builder) or is absent (JSON).
    MissingField {
        /// The field.
        field: String,
    },
    /// A text field is empty or only whitespace.
    BlankField {
        /// The field.
        field: String,
    },
    /// A text field contains a control, bidi or invisible character.
    ForbiddenCharacter {
        /// The field.
        field: String,
        /// The first such character.
        character: char,
    },
    /// A text field is longer than allowed.
    TooLong {
        /// The field.
        field: String,
        /// Its length (Unicode scalar values for text, bytes for identifiers).
        len: usize,
        /// The maximum.
        max: usize,
    },
    /// An identifier is not 1 or more bytes of printable ASCII without space.
    InvalidIdentifier {
        /// The field.
        field: String,
        /// The value given.
        value: String,
    },
    /// A file path has no canonical spelling.
    InvalidPath {
        /// The field.
        field: String,
        /// Why.
        error: PathError,
    },
    /// A stored path is not in its canonical spelling.
    NonCanonicalPath {
        /// The path as stored.
        path: String,
        /// Its canonical spelling.
        canonical: String,
    },
    /// The same file (after canonicalization) is listed twice.
    DuplicateFile {
        /// The canonical path.
        path: String,
    },
    /// A file lists no sent line range.
    NoRanges {
        /// The canonical path.
        path: String,
    },
    /// A line range is not `1 <= start <= end <= 2^53`.
    InvalidRange {
        /// The canonical path.
        path: String,
        /// First line.
        start: u64,
        /// Last line.
        end: u64,
    },
    /// A line range starts before the previous range of the same file.
    UnorderedRanges {
        /// The canonical path.
        path: String,
        /// Start of the previous range.
        previous_start: u64,
        /// Start of this range.
        start: u64,
    },
    /// A line range shares lines with the previous range of the same file.
    OverlappingRanges {
        /// The canonical path.
        path: String,
        /// End of the previous range.
        previous_end: u64,
        /// Start of this range.
        start: u64,
    },
    /// A redaction type is listed twice.
    DuplicateRedaction {
        /// The type.
        kind: String,
    },
    /// A redaction count is zero.
    ZeroRedactionCount {
        /// The type.
        kind: String,
    },
    /// An external tool is listed twice.
    DuplicateExternalTool {
        /// The tool.
        name: String,
    },
    /// A list is longer than its limit.
    TooMany {
        /// The list.
        field: String,
        /// Its length.
        count: usize,
        /// The configured maximum.
        max: usize,
    },
    /// A number is beyond 2^53 (the largest integer JSON carries exactly).
    NumberOutOfRange {
        /// The field.
        field: String,
        /// The value.
        value: u64,
    },
    /// The input is not canonical-profile JSON.
    Json(JsonError),
    /// A member that the format does not define.
    UnknownField {
        /// The member, with its position.
        field: String,
    },
    /// A member of the wrong JSON type.
    WrongType {
        /// The member.
        field: String,
        /// The type the format requires.
        expected: &'static str,
    },
    /// A digest that is not 64 lowercase hexadecimal digits.
    InvalidDigest {
        /// The member.
        field: String,
        /// The text given.
        text: String,
    },
    /// `_type` is not `seal/manifest/v1`.
    WrongRecordType {
        /// The value given.
        found: String,
    },
    /// `version` is not 1.
    UnsupportedVersion {
        /// The value given.
        found: String,
    },
    /// A list is not in its canonical order (files by path, redactions by type, tools by name).
    NotInCanonicalOrder {
        /// The list.
        field: String,
    },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ManifestError as E;
        match self {
            E::LineRange {
                path,
                start,
                end,
                lines,
            } => write!(
                f,
                "lines {start}-{end} of `{}` are not within its {lines} lines",
                path.escape_debug()
            ),
            E::MissingField { field } => write!(f, "missing field `{field}`"),
            E::BlankField { field } => write!(f, "field `{field}` is blank"),
            E::ForbiddenCharacter { field, character } => write!(
                f,
                "field `{field}` contains the forbidden character `{}`",
                character.escape_unicode()
            ),
            E::TooLong { field, len, max } => {
                write!(f, "field `{field}` has length {len}, more than {max}")
            }
            E::InvalidIdentifier { field, value } => write!(
                f,
                "field `{field}` is not an identifier: `{}`",
                value.escape_debug()
            ),
            E::InvalidPath { field, error } => write!(f, "field `{field}`: {error}"),
            E::NonCanonicalPath { path, canonical } => write!(
                f,
                "path `{}` is not canonical (canonical: `{}`)",
                path.escape_debug(),
                canonical.escape_debug()
            ),
            E::DuplicateFile { path } => write!(f, "file `{}` listed twice", path.escape_debug()),
            E::NoRanges { path } => {
                write!(f, "file `{}` lists no line range", path.escape_debug())
            }
            E::InvalidRange { path, start, end } => write!(
                f,
                "file `{}` has invalid line range `{start}-{end}`",
                path.escape_debug()
            ),
            E::UnorderedRanges {
                path,
                previous_start,
                start,
            } => write!(
                f,
                "file `{}` has range starting at `{start}` after one starting at `{previous_start}`",
                path.escape_debug()
            ),
            E::OverlappingRanges {
                path,
                previous_end,
                start,
            } => write!(
                f,
                "file `{}` has range starting at `{start}` overlapping one ending at `{previous_end}`",
                path.escape_debug()
            ),
            E::DuplicateRedaction { kind } => {
                write!(f, "redaction type `{}` listed twice", kind.escape_debug())
            }
            E::ZeroRedactionCount { kind } => {
                write!(f, "redaction type `{}` has count 0", kind.escape_debug())
            }
            E::DuplicateExternalTool { name } => {
                write!(f, "external tool `{}` listed twice", name.escape_debug())
            }
            E::TooMany { field, count, max } => {
                write!(f, "field `{field}` has {count} entries, more than {max}")
            }
            E::NumberOutOfRange { field, value } => {
                write!(f, "field `{field}` is `{value}`, beyond 2^53")
            }
            E::Json(error) => write!(f, "invalid json: {error}"),
            E::UnknownField { field } => write!(f, "unknown field `{}`", field.escape_debug()),
            E::WrongType { field, expected } => {
                write!(f, "field `{field}` must be {expected}")
            }
            E::InvalidDigest { field, text } => write!(
                f,
                "field `{field}` is not 64 lowercase hexadecimal digits: `{}`",
                text.escape_debug()
            ),
            E::WrongRecordType { found } => {
                write!(f, "record type `{}` is not a manifest", found.escape_debug())
            }
            E::UnsupportedVersion { found } => {
                write!(f, "unsupported manifest version `{}`", found.escape_debug())
            }
            E::NotInCanonicalOrder { field } => {
                write!(f, "field `{field}` is not in canonical order")
            }
        }
    }
}

impl std::error::Error for ManifestError {}
