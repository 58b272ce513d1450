//! The harmless redirections the lexer reads and drops (to and from `/dev/null`, standard output
//! and error merged); any other redirection stops the pass.

use super::{ends_word, Builder, Held, Lexer, Stop};
use crate::shell::UnanalysableReason;

impl Lexer<'_, '_> {
    /// Refuses a segment that has no word but a redirection (`>/dev/null` alone): zsh runs
    /// `$NULLCMD` (`cat`) for it, other shells nothing.
    pub(super) fn no_lone_redirection(&self) -> Result<(), Stop> {
        match self.redirection {
            Some(offset) => Err(Stop {
                reason: UnanalysableReason::Redirection,
                offset,
            }),
            None => Ok(()),
        }
    }

    /// An unquoted `<`, `>` or `&>` at the current position that starts no process
    /// substitution, here-document or here-string. One of the harmless forms (see
    /// [`harmless_operator`]) with its target is read and dropped from the words; any other
    /// redirection is refused at its operator.
    pub(super) fn redirection(&mut self) -> Result<(), Stop> {
        let at = self.pos;
        let refused = Stop {
            reason: UnanalysableReason::Redirection,
            offset: at,
        };
        // A word of unquoted digits right before `<` or `>` is the descriptor redirected; before
        // `&>` it is an ordinary word (`&` ends it).
        let descriptor = match &self.word {
            Some(word) if self.peek(0) != Some(b'&') => self
                .text
                .get(word.start..at)
                .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())),
            _ => None,
        };
        let rest = self.bytes.get(at..).unwrap_or_default();
        let (len, target) = harmless_operator(descriptor, rest).ok_or(refused.clone())?;
        let mut end = at + len;
        while matches!(self.bytes.get(end), Some(b' ' | b'\t')) {
            end += 1;
        }
        let target = match target {
            Target::DevNull => DEV_NULL.as_bytes(),
            Target::Descriptor(digit) => digit,
        };
        let after = end + target.len();
        if self.bytes.get(end..after) != Some(target) || !ends_word(self.bytes.get(after)) {
            return Err(refused);
        }
        if descriptor.is_some() {
            // The digits were the descriptor, not a word: forget them.
            if let Some(Builder {
                held: Held::Decoded(from),
                ..
            }) = self.word.take()
            {
                self.out.decoded.truncate(from);
            }
        } else {
            self.end_word()?;
        }
        self.redirection.get_or_insert(at);
        // The loop counted the first byte.
        self.steps += after - at - 1;
        self.pos = after;
        Ok(())
    }
}

/// The only file a harmless redirection may name, written as this plain word exactly.
const DEV_NULL: &str = "/dev/null";

/// What a harmless redirection operator must be followed by (after optional blanks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The word `/dev/null`.
    DevNull,
    /// This descriptor digit (`1` or `2`), alone.
    Descriptor(&'static [u8]),
}

/// The length and expected target of the operator at the start of `rest`, when it is one of
/// the harmless redirections: output to `/dev/null` (`>`, `>>`, `>|`, `1>`, `2>`, `1>>`,
/// `2>>`, `&>`, `&>>`), input from `/dev/null` (`<`, `0<`), or standard output and standard
/// error merged (`2>&1`, `1>&2`, `>&2`). `descriptor` is the word of digits written right
/// before the operator, if any. Every other operator (`3>`, `<>`, `<&`, `>&-`, `2>|`...) is
/// `None`.
fn harmless_operator(descriptor: Option<&str>, rest: &[u8]) -> Option<(usize, Target)> {
    let out_fd = matches!(descriptor, None | Some("1" | "2"));
    match (rest, descriptor) {
        ([b'&', b'>', b'>', ..], None) => Some((3, Target::DevNull)),
        ([b'&', b'>', ..], None) => Some((2, Target::DevNull)),
        ([b'>', b'>', ..], _) if out_fd => Some((2, Target::DevNull)),
        ([b'>', b'|', ..], None) => Some((2, Target::DevNull)),
        ([b'>', b'|', ..], _) => None,
        ([b'>', b'&', ..], None | Some("1")) => Some((2, Target::Descriptor(b"2"))),
        ([b'>', b'&', ..], Some("2")) => Some((2, Target::Descriptor(b"1"))),
        ([b'>', b'&', ..], _) => None,
        ([b'>', ..], _) if out_fd => Some((1, Target::DevNull)),
        ([b'<', b'&' | b'>', ..], _) => None,
        ([b'<', ..], None | Some("0")) => Some((1, Target::DevNull)),
        _ => None,
    }
}
