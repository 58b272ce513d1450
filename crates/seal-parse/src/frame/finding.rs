//! What a scan reports: strictly accepted frames, suspect tags, their spans and reasons.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

/// A byte range `start..end` of the scanned text; both ends lie on character boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span as a range, for slicing the scanned text.
    #[must_use]
    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }

    /// The spanned text of `text` (the text that was scanned); `None` for any other text whose
    /// boundaries do not fit.
    #[must_use]
    pub fn of(self, text: &str) -> Option<&str> {
        text.get(self.range())
    }
}

/// One attribute of a strictly accepted frame, with its value decoded; both borrow from the
/// scanned text (the value is owned only when its escaped form held an escape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute<'t> {
    /// The name, `[a-z][a-z0-9_-]{0,63}`.
    pub name: &'t str,
    /// The decoded value (escape-v1, `Attribute` context).
    pub value: Cow<'t, str>,
}

impl Attribute<'_> {
    /// The decoded value.
    #[must_use]
    pub fn value(&self) -> &str {
        &self.value
    }
}

/// What a scan found at one place of the text; borrows from the scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameFinding<'t> {
    /// A frame whose opening tag is exactly frame-v1 and whose closing tag is exact: re-rendering
    /// its header from `element` and `attributes` gives back the header bytes.
    Frame(Frame<'t>),
    /// Something a reader would take for a tag of the element that is not a strictly accepted
    /// frame; every one of these is grounds for an alarm.
    Suspect(Suspect),
}

impl FrameFinding<'_> {
    /// Nesting depth: 1 for a frame at top level, 2 and more for a frame inside another frame's
    /// body, 0 for a closing tag with no open frame.
    #[must_use]
    pub fn depth(&self) -> usize {
        match self {
            FrameFinding::Frame(frame) => frame.depth,
            FrameFinding::Suspect(suspect) => suspect.depth,
        }
    }

    /// The span of the tag that starts the finding (opening tag, or the lone closing tag).
    #[must_use]
    pub fn tag(&self) -> Span {
        match self {
            FrameFinding::Frame(frame) => frame.header,
            FrameFinding::Suspect(suspect) => suspect.tag,
        }
    }
}

/// A strictly accepted frame, borrowing its element name and attributes from the scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame<'t> {
    /// The element name, identical to the configured one (the bytes of the header that spell
    /// it).
    pub element: &'t str,
    /// Attributes in document order, values decoded; names are distinct and `sig`, if present,
    /// is last.
    pub attributes: Vec<Attribute<'t>>,
    /// 1 at top level; 2 and more when the header lies inside another frame's body. Nested
    /// frames are never to be trusted, whatever their syntax.
    pub depth: usize,
    /// The opening tag, `<` to `>`.
    pub header: Span,
    /// Between the header and the closing tag; not decoded (bodies written by other harnesses
    /// are raw text).
    pub body: Span,
    /// The closing tag.
    pub close: Span,
    /// Whether the close was the literal `</name>` or the harness-rewritten `<\/name>`.
    pub close_form: CloseForm,
}

impl<'t> Frame<'t> {
    /// Whether the frame lies inside another frame's body.
    #[must_use]
    pub fn is_nested(&self) -> bool {
        self.depth > 1
    }

    /// The decoded value of attribute `name`, if present.
    #[must_use]
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|attribute| attribute.name == name)
            .map(Attribute::value)
    }
}

/// The two closing tags that end a strictly accepted frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseForm {
    /// `</name>`.
    Literal,
    /// `<\/name>`, honoured only with the harness rewrite configured and only for nested frames.
    Rewritten,
}

/// A detected tag that is not a strictly accepted frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suspect {
    /// The kind of tag that starts this finding.
    pub kind: TagKind,
    /// As [`Frame::depth`]; 0 for a stray closing tag.
    pub depth: usize,
    /// The tag's span (up to where detection stopped, for an unterminated tag).
    pub tag: Span,
    /// The body, when the opening tag was terminated and a closing tag paired with it.
    pub body: Option<Span>,
    /// The closing tag paired with it, if any.
    pub close: Option<Span>,
    /// Every reason found, in order of discovery, without repeats; never empty.
    pub reasons: Vec<SuspectReason>,
}

/// The kind of a detected tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagKind {
    /// An opening tag.
    Open,
    /// A closing tag, `</name>` or a lenient form of it.
    Close,
    /// The harness-rewritten closing tag `<\/name>`.
    RewrittenClose,
}

/// Why a detection is not strictly accepted: each [`Suspect`] carries one or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum SuspectReason {
    /// A fullwidth or lookalike `<`, `>` or `/`.
    LookalikeBracket,
    /// The element name in another case.
    NameCase,
    /// Fullwidth letters, digits or hyphen in the element name.
    LookalikeName,
    /// Invisible characters (zero-width, bidi controls, variation selectors, tags, fillers...)
    /// inside the element name.
    IgnorableInName,
    /// Whitespace or invisible characters where the strict grammar has none, or anything other
    /// than one ASCII space between attributes.
    WhitespaceInTag,
    /// An attribute that is not `name="value"`: unquoted, single-quoted, missing value, name
    /// outside `[a-z][a-z0-9_-]{0,63}`, no space before it, or stray characters in the tag.
    AttributeSyntax,
    /// A quoted value that is not a canonical escape-v1 `Attribute` value (raw non-ASCII, raw
    /// `>`, non-minimal escapes...).
    NonCanonicalValue,
    /// The same attribute name twice.
    DuplicateAttribute,
    /// An attribute after `sig`.
    SigNotLast,
    /// More attributes than [`ScanLimits::max_attributes`](super::ScanLimits::max_attributes).
    TooManyAttributes,
    /// A tag longer than [`ScanLimits::max_header_bytes`](super::ScanLimits::max_header_bytes).
    HeaderTooLong,
    /// A tag with no closing bracket before the next opening bracket or the end of the text.
    Unterminated,
    /// An opening tag that no closing tag closed.
    Unclosed,
    /// A closing tag with no frame to close.
    StrayClose,
    /// A self-closing tag `<name/>`.
    SelfClosing,
    /// A closing tag with something other than the name inside.
    CloseSyntax,
}

impl SuspectReason {
    /// A stable snake_case code for reports and golden vectors.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            SuspectReason::LookalikeBracket => "lookalike_bracket",
            SuspectReason::NameCase => "name_case",
            SuspectReason::LookalikeName => "lookalike_name",
            SuspectReason::IgnorableInName => "ignorable_in_name",
            SuspectReason::WhitespaceInTag => "whitespace_in_tag",
            SuspectReason::AttributeSyntax => "attribute_syntax",
            SuspectReason::NonCanonicalValue => "non_canonical_value",
            SuspectReason::DuplicateAttribute => "duplicate_attribute",
            SuspectReason::SigNotLast => "sig_not_last",
            SuspectReason::TooManyAttributes => "too_many_attributes",
            SuspectReason::HeaderTooLong => "header_too_long",
            SuspectReason::Unterminated => "unterminated",
            SuspectReason::Unclosed => "unclosed",
            SuspectReason::StrayClose => "stray_close",
            SuspectReason::SelfClosing => "self_closing",
            SuspectReason::CloseSyntax => "close_syntax",
        }
    }
}

impl fmt::Display for SuspectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A limit that stops the scan; the text must be treated as failing verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanError {
    /// More findings than [`ScanLimits::max_frames`](super::ScanLimits::max_frames).
    TooManyFindings {
        /// The limit.
        limit: usize,
        /// Byte offset of the tag that would have been one too many.
        at: usize,
    },
    /// More frames open at once than [`ScanLimits::max_depth`](super::ScanLimits::max_depth).
    TooDeep {
        /// The limit.
        limit: usize,
        /// Byte offset of the opening tag that would have gone too deep.
        at: usize,
    },
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanError::TooManyFindings { limit, at } => {
                write!(f, "more than {limit} frame findings (at byte {at})")
            }
            ScanError::TooDeep { limit, at } => {
                write!(f, "frames nested deeper than {limit} (at byte {at})")
            }
        }
    }
}

impl std::error::Error for ScanError {}

/// Work counters of one scan, for tests that bound work without timing it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Positions where the byte search stopped (a `<` or a lead byte of a lookalike).
    pub search_hits: usize,
    /// Candidates: opening brackets where tag detection started.
    pub candidates: usize,
    /// Characters consumed one by one during tag detection (each candidate's bracket included;
    /// the character that stops a detection is not consumed, it is where the search resumes).
    pub chars_examined: usize,
}

impl ScanStats {
    /// All counted steps.
    #[must_use]
    pub fn steps(&self) -> usize {
        self.search_hits + self.candidates + self.chars_examined
    }
}
