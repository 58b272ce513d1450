//! The analysis of one simple command: assignments skipped, every program position checked,
//! wrappers stripped, the normalized forms computed, and a shell payload to unwrap found.

use crate::shell::buffer::{BufferWords, WordEntry};
use crate::shell::chars::listed;
use crate::shell::forms::{basename, FormMarks, FormRef};
use crate::shell::program::{
    check_program, shell_invocation, Invocation, OPAQUE_SHELLS, POSIX_SHELLS,
};
use crate::shell::wrappers::{wrapper, Strip};
use crate::shell::UnanalysableReason;

/// What the analysis of one simple command found.
pub(super) struct Analysis {
    pub(super) assignments: usize,
    pub(super) marks: FormMarks,
    /// Index of the payload word of a shell invocation to unwrap.
    pub(super) payload: Option<usize>,
}

/// Checks every program position of `words` and computes the forms: the named ones, and the
/// distinct ones after the canonical form appended to `all`. Errors carry the offset of the
/// offending word.
pub(super) fn analyse(
    words: BufferWords<'_>,
    all: &mut Vec<FormRef>,
    steps: &mut usize,
) -> Result<Analysis, (UnanalysableReason, usize)> {
    let at = |word: &WordEntry| word.span.start;
    let base = all.len();
    let mut start = 0;
    while let Some(word) = words.entry(start).filter(|w| w.assignment) {
        *steps += 1;
        if word.tilde {
            return Err((
                UnanalysableReason::AssignmentExpansion {
                    word: words.value_of(word).to_owned(),
                },
                at(word),
            ));
        }
        start += 1;
    }
    let assignments = start;
    let Some(first) = words.entry(start) else {
        return Err((
            UnanalysableReason::AssignmentOnly,
            words.entry(0).map_or(0, |w| w.span.start),
        ));
    };
    let env_stripped = FormRef {
        start,
        basename: false,
    };
    record(env_stripped, all, base);
    let basename_form = FormRef {
        start,
        basename: has_basename(words.value_of(first)),
    };
    let mut program = first;
    loop {
        *steps += 1;
        let name = words.value_of(program);
        check_program(name, program).map_err(|reason| (reason, at(program)))?;
        let base_form = FormRef {
            start,
            basename: true,
        };
        if has_basename(name) {
            record(base_form, all, base);
        }
        let Some(wrapper) = wrapper(basename(name)) else {
            break;
        };
        let args = words.tail(start + 1);
        match wrapper.strip(&args, steps) {
            Ok(Strip::Command(skip)) => {
                start += 1 + skip;
                let Some(next) = words.entry(start) else {
                    break;
                };
                program = next;
                record(
                    FormRef {
                        start,
                        basename: false,
                    },
                    all,
                    base,
                );
            }
            Ok(Strip::NoCommand) => break,
            Err(reason) => return Err((reason, at(program))),
        }
    }
    let program_value = words.value_of(program);
    let wrapper_stripped = FormRef {
        start,
        basename: false,
    };
    let normalized = FormRef {
        start,
        basename: has_basename(program_value),
    };
    let name = basename(program_value);
    let args = words.tail(start + 1);
    let payload = if listed(POSIX_SHELLS, name) {
        match shell_invocation(name, &args, steps) {
            Ok(Invocation::Plain) => None,
            Ok(Invocation::Payload(index)) => Some(start + 1 + index),
            Err(reason) => return Err((reason, at(program))),
        }
    } else if listed(OPAQUE_SHELLS, name) && !args.is_empty() {
        return Err((
            UnanalysableReason::UnsupportedShell {
                shell: name.to_owned(),
            },
            at(program),
        ));
    } else {
        None
    };
    Ok(Analysis {
        assignments,
        marks: FormMarks {
            env_stripped,
            basename: basename_form,
            wrapper_stripped,
            normalized,
        },
        payload,
    })
}

/// Appends `form` to the forms after the canonical one (those of `all` from `base`) unless it
/// is the last form already.
fn record(form: FormRef, all: &mut Vec<FormRef>, base: usize) {
    let last = if all.len() > base {
        all.last().copied()
    } else {
        None
    };
    if last.unwrap_or(FormRef::CANONICAL) != form {
        all.push(form);
    }
}

/// Whether the basename of `word` differs from it.
fn has_basename(word: &str) -> bool {
    basename(word) != word
}
