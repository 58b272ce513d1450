//! The line layout shared by approval cards and manifest summaries: every line starts with a
//! renderer-owned gutter of fixed width, field text wraps at a fixed width, and a wrapped line
//! continues behind a gutter that no field line and no other renderer line uses.

use std::borrow::Cow;

use crate::context::Context;
use crate::escape::escape;

/// Columns of every line a card or summary renders, gutter included.
pub const LINE_WIDTH: usize = 80;

/// Where a layout puts its gutters.
pub(crate) struct Layout {
    /// Written before the label of a field line (`| ` on cards, nothing on summaries).
    pub(crate) lead: &'static str,
    /// Columns of the lead plus the label padded with spaces: where field text starts.
    pub(crate) text_column: usize,
    /// The whole gutter of a continuation line, `text_column` columns wide.
    pub(crate) continuation: &'static str,
}

impl Layout {
    /// Columns of field text on each line.
    pub(crate) fn text_columns(&self) -> usize {
        LINE_WIDTH.saturating_sub(self.text_column).max(1)
    }

    /// One field: the lead, `label` padded to the text column, then `shown` (printable ASCII,
    /// no LF) cut into pieces of [`Layout::text_columns`]; every piece after the first goes on
    /// a continuation line. A field with empty text is the lead and the label alone.
    pub(crate) fn field(&self, out: &mut String, label: &str, shown: &str) {
        let mut pieces = Pieces {
            rest: shown,
            columns: self.text_columns(),
        };
        match pieces.next() {
            None => {
                let start = out.len();
                out.push_str(self.lead);
                out.push_str(label);
                let kept = out.trim_end_matches(' ').len().max(start);
                out.truncate(kept);
            }
            Some(first) => {
                out.push_str(self.lead);
                out.push_str(label);
                let used = self.lead.len() + label.len();
                for _ in used..self.text_column {
                    out.push(' ');
                }
                out.push_str(first);
            }
        }
        out.push('\n');
        for piece in pieces {
            out.push_str(self.continuation);
            out.push_str(piece);
            out.push('\n');
        }
    }

    /// [`Layout::field`] with `text` escaped in [`Context::Inline`].
    pub(crate) fn text_field(&self, out: &mut String, label: &str, text: &str) {
        self.field(out, label, &escape(text, Context::Inline));
    }
}

/// The first eight bytes of a digest as 16 lowercase hex digits.
pub(crate) fn hex_prefix(digest: &[u8; 32]) -> String {
    let [a, b, c, d, e, f, g, h, ..] = *digest;
    hex::encode([a, b, c, d, e, f, g, h])
}

/// A digest as 64 lowercase hex digits.
pub(crate) fn hex_full(digest: &[u8; 32]) -> String {
    hex::encode(digest)
}

/// Elision: the text shown for `text` within `max_columns` columns of escaped text, and the
/// number of bytes left out.
///
/// Text whose escape fits is shown whole and nothing is left out. Otherwise the shown text is
/// the escape of the longest prefix of whole characters whose escape fits in
/// `max_columns - 6`, followed by the marker ` [...]`, so the shown text, marker included,
/// never passes `max_columns`.
pub(crate) fn elide(text: &str, max_columns: usize) -> (Cow<'_, str>, usize) {
    let escaped = escape(text, Context::Inline);
    if escaped.len() <= max_columns {
        return (escaped, 0);
    }
    let budget = max_columns.saturating_sub(ELISION_MARKER.len());
    let mut columns = 0;
    let mut cut = 0;
    let mut buffer = [0u8; 4];
    for (at, c) in text.char_indices() {
        let width = escape(c.encode_utf8(&mut buffer), Context::Inline).len();
        if columns + width > budget {
            break;
        }
        columns += width;
        cut = at + c.len_utf8();
    }
    // `cut` is 0 or the end of a character of `text`: always a boundary. Were it not, the
    // fallback shows nothing of the text and counts all of it as left out.
    debug_assert!(text.is_char_boundary(cut), "elision cut inside a character");
    let head = text.get(..cut).unwrap_or("");
    let mut shown = escape(head, Context::Inline).into_owned();
    shown.push_str(ELISION_MARKER);
    (Cow::Owned(shown), text.len() - head.len())
}

/// Appended to the shown text of an elided field.
pub(crate) const ELISION_MARKER: &str = " [...]";

/// Pieces of at most `columns` characters, in order, none empty.
struct Pieces<'a> {
    rest: &'a str,
    columns: usize,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let cut = self
            .rest
            .char_indices()
            .nth(self.columns)
            .map_or(self.rest.len(), |(at, _)| at);
        // `cut` is the start of a character or the end: always a boundary.
        debug_assert!(
            self.rest.is_char_boundary(cut),
            "piece cut inside a character"
        );
        let piece = self.rest.get(..cut).unwrap_or(self.rest);
        self.rest = self.rest.get(cut..).unwrap_or("");
        Some(piece)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARD: Layout = Layout {
        lead: "| ",
        text_column: 12,
        continuation: "|       ... ",
    };

    #[test]
    fn wraps_at_the_width_behind_the_continuation_gutter() {
        let mut out = String::new();
        let text = "a".repeat(68 * 2 + 3);
        CARD.field(&mut out, "command", &text);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], format!("| command   {}", "a".repeat(68)));
        assert_eq!(lines[1], format!("|       ... {}", "a".repeat(68)));
        assert_eq!(lines[2], "|       ... aaa");
        assert!(lines.iter().all(|line| line.len() <= LINE_WIDTH));
    }

    #[test]
    fn an_empty_field_is_its_label_alone() {
        let mut out = String::new();
        CARD.field(&mut out, "call", "");
        CARD.field(&mut out, "", "");
        assert_eq!(out, "| call\n|\n");
    }

    #[test]
    fn elision_fits_the_budget_with_its_marker() {
        assert_eq!(elide("short", 10), (Cow::Borrowed("short"), 0));
        let (shown, left) = elide("0123456789abc", 10);
        assert_eq!(shown, "0123 [...]");
        assert_eq!(left, 9);
        // A codeword is never cut: `\u{202e}` is 8 columns.
        let (shown, left) = elide("ab\u{202e}cdefgh", 12);
        assert_eq!(shown, "ab [...]");
        assert_eq!(left, 9);
        let (shown, left) = elide("abc", 0);
        assert_eq!((shown.as_ref(), left), (" [...]", 3));
    }

    #[test]
    fn hex_of_digests() {
        let mut digest = [0u8; 32];
        digest[0] = 0xab;
        digest[7] = 0x01;
        assert_eq!(hex_prefix(&digest), "ab00000000000001");
        assert_eq!(hex_full(&digest).len(), 64);
    }
}
