//! The segmentation pass: the command lexed into simple commands, each analysed, and shell
//! payloads segmented in place, depth by depth.

use super::analyse::analyse;
use super::ShellStats;
use crate::shell::buffer::{BufferWords, InvocationEntry, LexedEntry, SegmentBuffer, SegmentEntry};
use crate::shell::lexer::{lex, Out, Stop};
use crate::shell::{ShellLimits, Span, Unanalysable, UnanalysableReason};

/// Segments `command` into `buffer` (cleared first), with the work done.
pub(super) fn run(
    command: &str,
    limits: &ShellLimits,
    buffer: &mut SegmentBuffer,
) -> (Result<(), Unanalysable>, ShellStats) {
    buffer.clear();
    let mut run = Run {
        limits,
        steps: 0,
        command,
        buffer,
    };
    let result = if command.len() > limits.max_bytes {
        Err(Unanalysable {
            reason: UnanalysableReason::TooLong {
                len: command.len(),
                max: limits.max_bytes,
            },
            offset: 0,
            payload_depth: 0,
            payload_offset: 0,
        })
    } else {
        run.text(Source::Command, Origin::TOP)
    };
    (result, ShellStats { steps: run.steps })
}

/// Where a text being segmented sits: the command itself, or a payload.
#[derive(Clone, Copy)]
struct Origin {
    depth: usize,
    /// The outermost payload word, for payload texts.
    outer: Option<Span>,
    /// The innermost invocation, for payload texts.
    launcher: Option<usize>,
}

impl Origin {
    const TOP: Origin = Origin {
        depth: 0,
        outer: None,
        launcher: None,
    };

    fn fail(&self, reason: UnanalysableReason, offset: usize) -> Unanalysable {
        Unanalysable {
            reason,
            offset: self.outer.map_or(offset, |outer| outer.start),
            payload_depth: self.depth,
            payload_offset: offset,
        }
    }
}

/// Which text to segment: the command, or the payload copied into the buffer.
#[derive(Clone, Copy)]
enum Source {
    Command,
    Payload,
}

struct Run<'c, 'l> {
    limits: &'l ShellLimits,
    steps: usize,
    command: &'c str,
    buffer: &'l mut SegmentBuffer,
}

impl Run<'_, '_> {
    fn text(&mut self, source: Source, origin: Origin) -> Result<(), Unanalysable> {
        let base = self.buffer.lexed.len();
        let buffer = &mut *self.buffer;
        let out = Out {
            decoded: &mut buffer.decoded,
            words: &mut buffer.words,
            lexed: &mut buffer.lexed,
        };
        let lexed = match source {
            Source::Command => lex(self.command, true, self.limits, &mut self.steps, out),
            Source::Payload => lex(&buffer.payload, false, self.limits, &mut self.steps, out),
        };
        lexed.map_err(|Stop { reason, offset }| origin.fail(reason, offset))?;
        let end = self.buffer.lexed.len();
        for at in base..end {
            let Some(&lexed) = self.buffer.lexed.get(at) else {
                break;
            };
            self.one(lexed, origin)?;
        }
        self.buffer.lexed.truncate(base);
        Ok(())
    }

    fn one(&mut self, lexed: LexedEntry, origin: Origin) -> Result<(), Unanalysable> {
        let buffer = &mut *self.buffer;
        let words = BufferWords {
            command: self.command,
            decoded: &buffer.decoded,
            entries: &buffer.words,
        }
        .range(lexed.words);
        let forms_start = buffer.forms.len();
        let analysis = analyse(words, &mut buffer.forms, &mut self.steps)
            .map_err(|(reason, offset)| origin.fail(reason, offset))?;
        if let Some(payload) = analysis.payload {
            buffer.forms.truncate(forms_start);
            return self.payload(lexed, payload, origin);
        }
        if buffer.segments.len() >= self.limits.max_segments {
            return Err(origin.fail(
                UnanalysableReason::TooManySegments {
                    max: self.limits.max_segments,
                },
                lexed.span.start,
            ));
        }
        let span = origin.outer.unwrap_or(lexed.span);
        buffer.segments.push(SegmentEntry {
            words: lexed.words,
            assignments: analysis.assignments,
            span,
            operator: lexed.operator,
            launcher: origin.launcher,
            depth: origin.depth,
            marks: analysis.marks,
            forms: (forms_start, buffer.forms.len()),
        });
        Ok(())
    }

    fn payload(
        &mut self,
        lexed: LexedEntry,
        payload: usize,
        origin: Origin,
    ) -> Result<(), Unanalysable> {
        let buffer = &mut *self.buffer;
        let words = BufferWords {
            command: self.command,
            decoded: &buffer.decoded,
            entries: &buffer.words,
        }
        .range(lexed.words);
        let Some(word) = words.entry(payload) else {
            return Err(origin.fail(UnanalysableReason::EmptyCommand, lexed.span.start));
        };
        if origin.depth >= self.limits.max_payload_depth {
            return Err(origin.fail(
                UnanalysableReason::PayloadTooDeep {
                    max: self.limits.max_payload_depth,
                },
                word.span.start,
            ));
        }
        buffer.payload.clear();
        buffer.payload.push_str(words.value_of(word));
        let invocation = buffer.invocations.len();
        buffer.invocations.push(InvocationEntry {
            words: lexed.words,
            parent: origin.launcher,
            first_segment: buffer.segments.len(),
        });
        let inner = Origin {
            depth: origin.depth + 1,
            outer: Some(origin.outer.unwrap_or(word.span)),
            launcher: Some(invocation),
        };
        self.text(Source::Payload, inner)?;
        if let Some(last) = self.buffer.segments.last_mut() {
            if last.operator.is_none() {
                last.operator = lexed.operator;
            }
        }
        Ok(())
    }
}
