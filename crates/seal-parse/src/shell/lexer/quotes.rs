//! Quotes, escapes and `$` in the lexer: single and double quotes and backslashes are removed
//! with their values decoded; a `$` is named for the expansion it starts, which stops the pass.

use super::{read_text, Lexer, Stop};
use crate::shell::chars::{forbidden, is_name_byte};
use crate::shell::UnanalysableReason;

impl Lexer<'_, '_> {
    pub(super) fn single_quote(&mut self) -> Result<(), Stop> {
        let open = self.pos;
        let rest = self.bytes.get(open + 1..).unwrap_or_default();
        let Some(len) = memchr::memchr(b'\'', rest) else {
            return Err(Stop {
                reason: UnanalysableReason::UnterminatedQuote { quote: '\'' },
                offset: open,
            });
        };
        let content = read_text(self.text, open + 1..open + 1 + len);
        for (at, c) in content.char_indices() {
            self.steps += 1;
            if let Some(reason) = forbidden(c) {
                return Err(Stop {
                    reason,
                    offset: open + 1 + at,
                });
            }
        }
        self.decode();
        self.out.decoded.push_str(content);
        self.quoted();
        self.pos = open + len + 2;
        Ok(())
    }

    pub(super) fn double_quote(&mut self) -> Result<(), Stop> {
        let open = self.pos;
        let unterminated = Stop {
            reason: UnanalysableReason::UnterminatedQuote { quote: '"' },
            offset: open,
        };
        self.decode();
        self.quoted();
        self.pos += 1;
        loop {
            let Some(byte) = self.peek(0) else {
                return Err(unterminated);
            };
            self.steps += 1;
            match byte {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => match self.peek(1) {
                    Some(escaped @ (b'$' | b'`' | b'"' | b'\\')) => {
                        self.out.decoded.push(char::from(escaped));
                        self.pos += 2;
                    }
                    Some(b'\n') => return Err(self.stop(UnanalysableReason::ContinuationInWord)),
                    None => return Err(unterminated),
                    Some(_) => {
                        self.out.decoded.push('\\');
                        self.pos += 1;
                    }
                },
                b'$' => return Err(self.stop(self.dollar(true))),
                b'`' => return Err(self.stop(UnanalysableReason::Backtick)),
                _ => {
                    let c = self.char_at(self.pos)?;
                    self.out.decoded.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    pub(super) fn backslash(&mut self) -> Result<(), Stop> {
        match self.peek(1) {
            None => Err(self.stop(UnanalysableReason::TrailingBackslash)),
            Some(b'\n') if self.word.is_some() => {
                Err(self.stop(UnanalysableReason::ContinuationInWord))
            }
            Some(b'\n') => {
                self.pos += 2;
                Ok(())
            }
            Some(_) => {
                let c = self.char_at(self.pos + 1)?;
                self.decode();
                self.out.decoded.push(c);
                self.quoted();
                self.pos += 1 + c.len_utf8();
                Ok(())
            }
        }
    }

    /// The reason for a `$` at the current position (`quoted`: inside double quotes).
    pub(super) fn dollar(&self, quoted: bool) -> UnanalysableReason {
        match (self.peek(1), self.peek(2)) {
            (Some(b'('), Some(b'(')) => UnanalysableReason::Arithmetic,
            (Some(b'('), _) => UnanalysableReason::CommandSubstitution,
            (Some(b'{'), _) => UnanalysableReason::ParameterExpansion,
            (Some(b'\''), _) if !quoted => UnanalysableReason::AnsiCQuote,
            (Some(b'"'), _) if !quoted => UnanalysableReason::LocaleQuote,
            (Some(b), _)
                if is_name_byte(b)
                    || matches!(b, b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-') =>
            {
                UnanalysableReason::ParameterExpansion
            }
            _ => UnanalysableReason::Dollar,
        }
    }
}
