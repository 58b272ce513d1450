//! Lenient detection of one tag at a candidate opening bracket.
//!
//! Detection reads characters from the bracket and stops at the tag's closing bracket, at the
//! first character that rules the tag out, at the next opening bracket, at the end of the text
//! or at the header limit, whichever comes first. It never reads past an opening bracket, which
//! is what keeps candidate regions disjoint (spec/frame-v1.md, "Linear time").

use std::borrow::Cow;
use std::collections::BTreeSet;

use super::chars::{
    continues_name, is_close_bracket, is_ignorable, is_open_bracket, is_slash, is_tag_space,
    match_name_char, NameMatch,
};
use super::config::{is_attribute_name, ScanConfig};
use super::finding::{Attribute, Span, SuspectReason, TagKind};
use super::value::decode_attribute_value;

/// The outcome of detection at one candidate.
pub(crate) enum Detection<'t> {
    /// No tag of the element here; searching may resume at `resume`.
    NotATag {
        /// Byte offset after the last character read that cannot start a tag.
        resume: usize,
    },
    /// A tag of the element.
    Tag(Tag<'t>),
}

/// A detected tag.
#[derive(Debug)]
pub(crate) struct Tag<'t> {
    pub(crate) kind: TagKind,
    pub(crate) span: Span,
    pub(crate) reasons: Reasons,
    /// Decoded attributes; complete only when `reasons` is empty.
    pub(crate) attributes: Vec<Attribute<'t>>,
    /// Whether a closing bracket ended the tag.
    pub(crate) terminated: bool,
    /// Whether the tag was `<name ... />`.
    pub(crate) self_closing: bool,
}

/// Reasons in order of discovery, without repeats (an empty list allocates nothing, so
/// detection at a candidate that turns out not to be a tag allocates nothing).
#[derive(Debug, Default)]
pub(crate) struct Reasons(Vec<SuspectReason>);

impl Reasons {
    pub(crate) fn add(&mut self, reason: SuspectReason) {
        if !self.0.contains(&reason) {
            self.0.push(reason);
        }
    }

    pub(crate) fn extend(&mut self, other: Reasons) {
        for reason in other.0 {
            self.add(reason);
        }
    }

    pub(crate) fn into_vec(self) -> Vec<SuspectReason> {
        self.0
    }
}

/// Detection character by character: every tag, strictly written or not.
pub(crate) fn detect_lenient<'t>(
    text: &'t str,
    start: usize,
    config: &ScanConfig,
) -> (Detection<'t>, usize) {
    let Some(bracket) = text.get(start..).and_then(|rest| rest.chars().next()) else {
        return (Detection::NotATag { resume: start + 1 }, 1);
    };
    let limit = start
        .saturating_add(config.limits().max_header_bytes)
        .min(text.len());
    let mut cursor = Cursor {
        text,
        pos: start + bracket.len_utf8(),
        limit,
        steps: 1,
    };
    let mut detector = Detector {
        cursor: &mut cursor,
        config,
        start,
        reasons: Reasons::default(),
    };
    let detection = detector.run(bracket);
    (detection, cursor.steps)
}

/// A checked reader over the text with a header limit and a counter of characters consumed.
///
/// Every loop in detection consumes a character per iteration and peeks once more to stop, so
/// the characters consumed bound the work of one detection up to a constant.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    limit: usize,
    steps: usize,
}

/// What a run of tag space contained.
#[derive(Default)]
struct Space {
    whitespace: bool,
    ignorable: bool,
    one_ascii_space: bool,
}

impl Space {
    fn any(&self) -> bool {
        self.whitespace || self.ignorable
    }
}

impl Cursor<'_> {
    fn peek(&mut self) -> Option<char> {
        if self.pos >= self.limit {
            return None;
        }
        let byte = *self.text.as_bytes().get(self.pos)?;
        if byte.is_ascii() {
            return Some(char::from(byte));
        }
        self.text
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
    }

    fn bump(&mut self, c: char) {
        self.steps += 1;
        self.pos += c.len_utf8();
    }

    /// Whether reading stopped at the header limit rather than at the end of the text.
    fn at_limit(&self) -> bool {
        self.pos >= self.limit && self.limit < self.text.len()
    }

    fn skip_space(&mut self) -> Space {
        let mut space = Space::default();
        let mut count = 0usize;
        while let Some(c) = self.peek() {
            if !is_tag_space(c) {
                break;
            }
            if is_ignorable(c) {
                space.ignorable = true;
            } else {
                space.whitespace = true;
            }
            space.one_ascii_space = count == 0 && c == ' ';
            count += 1;
            self.bump(c);
        }
        space
    }
}

struct Detector<'c, 't> {
    cursor: &'c mut Cursor<'t>,
    config: &'c ScanConfig,
    start: usize,
    reasons: Reasons,
}

impl<'t> Detector<'_, 't> {
    fn run(&mut self, bracket: char) -> Detection<'t> {
        if bracket != '<' {
            self.reasons.add(SuspectReason::LookalikeBracket);
        }
        let space = self.cursor.skip_space();
        self.note_leading_space(&space);
        let kind = match self.cursor.peek() {
            Some('\\') if bracket == '<' && !space.any() => return self.rewritten_close(),
            Some(c) if is_slash(c) => {
                if c != '/' {
                    self.reasons.add(SuspectReason::LookalikeBracket);
                }
                self.cursor.bump(c);
                let space = self.cursor.skip_space();
                self.note_leading_space(&space);
                TagKind::Close
            }
            _ => TagKind::Open,
        };
        match self.name() {
            NameOutcome::Matched => {}
            NameOutcome::Mismatch => {
                return Detection::NotATag {
                    resume: self.cursor.pos,
                }
            }
            NameOutcome::Limit => return self.unterminated(kind, Vec::new()),
        }
        match kind {
            TagKind::Open => self.open_rest(),
            _ => self.close_rest(kind),
        }
    }

    fn note_leading_space(&mut self, space: &Space) {
        if space.whitespace {
            self.reasons.add(SuspectReason::WhitespaceInTag);
        }
        if space.ignorable {
            self.reasons.add(SuspectReason::IgnorableInName);
        }
    }

    /// `<\/name>` exactly, honoured only with the harness rewrite configured.
    fn rewritten_close(&mut self) -> Detection<'t> {
        let at = self.cursor.pos;
        let element = self.config.element();
        let matches = self.config.rewrite().is_some()
            && self.cursor.text.get(at..).is_some_and(|rest| {
                rest.strip_prefix("\\/")
                    .and_then(|rest| rest.strip_prefix(element))
                    .is_some_and(|rest| rest.starts_with('>'))
            });
        if !matches {
            return Detection::NotATag { resume: at };
        }
        let end = at + 3 + element.len();
        self.cursor.steps += 3 + element.len();
        self.cursor.pos = end;
        self.tag(TagKind::RewrittenClose, true, false, Vec::new())
    }

    fn name(&mut self) -> NameOutcome {
        for &expected in self.config.element().as_bytes() {
            self.skip_ignorables();
            let Some(c) = self.cursor.peek() else {
                return self.limit_or_mismatch();
            };
            match match_name_char(c, expected) {
                Some(NameMatch::Exact) => {}
                Some(NameMatch::Case) => self.reasons.add(SuspectReason::NameCase),
                Some(NameMatch::Fullwidth) => {
                    self.reasons.add(SuspectReason::LookalikeName);
                    if c > '\u{ff20}' && c < '\u{ff3b}' {
                        self.reasons.add(SuspectReason::NameCase);
                    }
                }
                None => return NameOutcome::Mismatch,
            }
            self.cursor.bump(c);
        }
        self.skip_ignorables();
        match self.cursor.peek() {
            Some(c) if continues_name(c) => NameOutcome::Mismatch,
            Some(_) => NameOutcome::Matched,
            None => {
                if self.cursor.at_limit() {
                    NameOutcome::Limit
                } else {
                    NameOutcome::Matched
                }
            }
        }
    }

    fn limit_or_mismatch(&self) -> NameOutcome {
        if self.cursor.at_limit() {
            NameOutcome::Limit
        } else {
            NameOutcome::Mismatch
        }
    }

    fn skip_ignorables(&mut self) {
        while let Some(c) = self.cursor.peek() {
            if !is_ignorable(c) {
                break;
            }
            self.reasons.add(SuspectReason::IgnorableInName);
            self.cursor.bump(c);
        }
    }

    fn close_rest(&mut self, kind: TagKind) -> Detection<'t> {
        if self.cursor.skip_space().any() {
            self.reasons.add(SuspectReason::WhitespaceInTag);
        }
        loop {
            match self.cursor.peek() {
                Some(c) if is_close_bracket(c) => {
                    if c != '>' {
                        self.reasons.add(SuspectReason::LookalikeBracket);
                    }
                    self.cursor.bump(c);
                    return self.tag(kind, true, false, Vec::new());
                }
                Some(c) if !is_open_bracket(c) => {
                    self.reasons.add(SuspectReason::CloseSyntax);
                    self.cursor.bump(c);
                }
                _ => return self.unterminated(kind, Vec::new()),
            }
        }
    }

    fn open_rest(&mut self) -> Detection<'t> {
        let mut attributes = Vec::new();
        let mut names = BTreeSet::new();
        let mut count = 0usize;
        let mut sig_seen = false;
        loop {
            let space = self.cursor.skip_space();
            let Some(c) = self.cursor.peek() else {
                return self.unterminated(TagKind::Open, attributes);
            };
            if is_close_bracket(c) {
                if space.any() {
                    self.reasons.add(SuspectReason::WhitespaceInTag);
                }
                if c != '>' {
                    self.reasons.add(SuspectReason::LookalikeBracket);
                }
                self.cursor.bump(c);
                return self.tag(TagKind::Open, true, false, attributes);
            }
            if is_open_bracket(c) {
                return self.unterminated(TagKind::Open, attributes);
            }
            if is_slash(c) {
                self.cursor.bump(c);
                self.cursor.skip_space();
                match self.cursor.peek() {
                    Some(d) if is_close_bracket(d) => {
                        if c != '/' || d != '>' {
                            self.reasons.add(SuspectReason::LookalikeBracket);
                        }
                        self.reasons.add(SuspectReason::SelfClosing);
                        self.cursor.bump(d);
                        return self.tag(TagKind::Open, true, true, attributes);
                    }
                    _ => {
                        self.reasons.add(SuspectReason::AttributeSyntax);
                        continue;
                    }
                }
            }
            if !space.one_ascii_space {
                self.reasons.add(if space.any() {
                    SuspectReason::WhitespaceInTag
                } else {
                    SuspectReason::AttributeSyntax
                });
            }
            let Some((name, value)) = self.attribute() else {
                return self.unterminated(TagKind::Open, attributes);
            };
            count += 1;
            if count > self.config.limits().max_attributes {
                self.reasons.add(SuspectReason::TooManyAttributes);
                continue;
            }
            if sig_seen {
                self.reasons.add(SuspectReason::SigNotLast);
            }
            sig_seen |= name == "sig";
            if !name.is_empty() && !names.insert(name) {
                self.reasons.add(SuspectReason::DuplicateAttribute);
            }
            if let Some(value) = value {
                attributes.push(Attribute { name, value });
            }
        }
    }

    /// Reads one attribute; `None` when the tag ends unterminated inside it. The value is `None`
    /// unless the attribute is strictly well formed.
    fn attribute(&mut self) -> Option<(&'t str, Option<Cow<'t, str>>)> {
        let text = self.cursor.text;
        let name_start = self.cursor.pos;
        while let Some(c) = self.cursor.peek() {
            if is_tag_space(c)
                || matches!(c, '=' | '"' | '\'')
                || is_close_bracket(c)
                || is_open_bracket(c)
                || is_slash(c)
            {
                break;
            }
            self.cursor.bump(c);
        }
        let name = text.get(name_start..self.cursor.pos).unwrap_or_default();
        let mut strict = is_attribute_name(name);
        if !strict {
            self.reasons.add(SuspectReason::AttributeSyntax);
        }
        if self.cursor.skip_space().any() {
            self.reasons.add(SuspectReason::WhitespaceInTag);
            strict = false;
        }
        let mut value = None;
        match self.cursor.peek() {
            Some('=') => {
                self.cursor.bump('=');
                if self.cursor.skip_space().any() {
                    self.reasons.add(SuspectReason::WhitespaceInTag);
                    strict = false;
                }
                match self.cursor.peek() {
                    Some(quote @ ('"' | '\'')) => {
                        self.cursor.bump(quote);
                        let value_start = self.cursor.pos;
                        loop {
                            match self.cursor.peek() {
                                Some(c) if c == quote => break,
                                Some(c) if !is_open_bracket(c) => self.cursor.bump(c),
                                _ => return None,
                            }
                        }
                        let raw = text.get(value_start..self.cursor.pos).unwrap_or_default();
                        self.cursor.bump(quote);
                        if quote == '\'' {
                            self.reasons.add(SuspectReason::AttributeSyntax);
                        } else {
                            match decode_attribute_value(raw) {
                                Ok(decoded) if strict => value = Some(decoded),
                                Ok(_) => {}
                                Err(_) => self.reasons.add(SuspectReason::NonCanonicalValue),
                            }
                        }
                    }
                    _ => {
                        self.reasons.add(SuspectReason::AttributeSyntax);
                        while let Some(c) = self.cursor.peek() {
                            if is_tag_space(c) || is_close_bracket(c) || is_open_bracket(c) {
                                break;
                            }
                            self.cursor.bump(c);
                        }
                    }
                }
            }
            _ => self.reasons.add(SuspectReason::AttributeSyntax),
        }
        if self.cursor.pos == name_start {
            // Nothing read (a stray quote): consume it so detection moves on.
            if let Some(c) = self.cursor.peek() {
                self.cursor.bump(c);
            }
        }
        Some((name, value))
    }

    fn unterminated(&mut self, kind: TagKind, attributes: Vec<Attribute<'t>>) -> Detection<'t> {
        self.reasons.add(if self.cursor.at_limit() {
            SuspectReason::HeaderTooLong
        } else {
            SuspectReason::Unterminated
        });
        self.tag(kind, false, false, attributes)
    }

    fn tag(
        &mut self,
        kind: TagKind,
        terminated: bool,
        self_closing: bool,
        attributes: Vec<Attribute<'t>>,
    ) -> Detection<'t> {
        Detection::Tag(Tag {
            kind,
            span: Span {
                start: self.start,
                end: self.cursor.pos,
            },
            reasons: std::mem::take(&mut self.reasons),
            attributes,
            terminated,
            self_closing,
        })
    }
}

enum NameOutcome {
    Matched,
    Mismatch,
    Limit,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant.
    const ALL: [SuspectReason; 16] = [
        SuspectReason::LookalikeBracket,
        SuspectReason::NameCase,
        SuspectReason::LookalikeName,
        SuspectReason::IgnorableInName,
        SuspectReason::WhitespaceInTag,
        SuspectReason::AttributeSyntax,
        SuspectReason::NonCanonicalValue,
        SuspectReason::DuplicateAttribute,
        SuspectReason::SigNotLast,
        SuspectReason::TooManyAttributes,
        SuspectReason::HeaderTooLong,
        SuspectReason::Unterminated,
        SuspectReason::Unclosed,
        SuspectReason::StrayClose,
        SuspectReason::SelfClosing,
        SuspectReason::CloseSyntax,
    ];

    #[test]
    fn reasons_keep_every_variant_once_in_order() {
        let mut reasons = Reasons::default();
        for reason in ALL.iter().chain(ALL.iter().rev()) {
            reasons.add(*reason);
        }
        assert_eq!(reasons.into_vec(), ALL.to_vec());
    }

    /// A repeated attribute name is found however many distinct names come before it, and
    /// distinct names are never taken for repeats.
    #[test]
    fn repeated_names_are_found_among_many() {
        let config = ScanConfig::new("channel").unwrap();
        let names: Vec<String> = (0..24).map(|i| format!(" a{i}=\"v\"")).collect();
        for (extra, repeated) in [("", false), (" b=\"v\"", false), (" a0=\"v\"", true)] {
            let text = format!("<channel{}{extra}>", names.concat());
            let (Detection::Tag(tag), _) = detect_lenient(&text, 0, &config) else {
                panic!("{text}")
            };
            let reasons = tag.reasons.into_vec();
            assert_eq!(
                reasons.contains(&SuspectReason::DuplicateAttribute),
                repeated,
                "{text}"
            );
        }
    }
}
