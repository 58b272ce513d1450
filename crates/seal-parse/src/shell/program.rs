//! What may stand in program position, and how a shell invocation is read.

use super::buffer::WordEntry;
use super::chars::listed;
use super::wrappers::WordSeq;
use super::UnanalysableReason;

/// Reserved words of sh, bash and zsh (`time` is handled as a wrapper).
pub(super) const KEYWORDS: &[&str] = &[
    "if",
    "then",
    "elif",
    "else",
    "fi",
    "case",
    "esac",
    "for",
    "select",
    "while",
    "until",
    "do",
    "done",
    "in",
    "function",
    "coproc",
    "{",
    "}",
    "[[",
    "]]",
    "!",
    "repeat",
    "foreach",
    "end",
    "always",
    "nocorrect",
    "noglob",
];

/// Builtins that run text as shell code or change how later words are read.
pub(super) const EVAL_BUILTINS: &[&str] = &["eval", "source", ".", "alias", "trap", "fc", "enable"];

/// Shells whose `-c` payload is segmented with this same grammar.
pub(super) const POSIX_SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// Option letters accepted before or around `-c` in a shell invocation.
pub(super) const SHELL_LETTERS: &[u8] = b"cefilnuvx";

/// Shells and multi-call binaries whose arguments are not analysed at all.
pub(super) const OPAQUE_SHELLS: &[&str] = &[
    "fish",
    "csh",
    "tcsh",
    "busybox",
    "toybox",
    "pwsh",
    "powershell",
    "nu",
    "xonsh",
    "elvish",
    "yash",
    "rc",
    "es",
];

/// Checks one word found in program position (`value`, read as `word`).
pub(super) fn check_program(value: &str, word: &WordEntry) -> Result<(), UnanalysableReason> {
    let owned = || value.to_owned();
    if value.is_empty() {
        Err(UnanalysableReason::EmptyProgram)
    } else if !value.is_ascii() {
        Err(UnanalysableReason::NonAsciiProgram { word: owned() })
    } else if word.glob {
        Err(UnanalysableReason::GlobInProgram { word: owned() })
    } else if word.leading_tilde {
        Err(UnanalysableReason::TildeInProgram { word: owned() })
    } else if word.leading_equals {
        Err(UnanalysableReason::EqualsInProgram { word: owned() })
    } else if listed(KEYWORDS, value) {
        Err(UnanalysableReason::Keyword { word: owned() })
    } else if listed(EVAL_BUILTINS, value) {
        Err(UnanalysableReason::EvalBuiltin { word: owned() })
    } else {
        Ok(())
    }
}

/// How a shell's arguments read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Invocation {
    /// No `-c`: the shell runs a script or reads standard input; the segment stays as is.
    Plain,
    /// `-c` with its payload at this index of the arguments, the last word.
    Payload(usize),
}

/// Reads the arguments of the POSIX shell `shell`. `steps` grows by the words and letters read.
pub(super) fn shell_invocation<W: WordSeq + ?Sized>(
    shell: &str,
    args: &W,
    steps: &mut usize,
) -> Result<Invocation, UnanalysableReason> {
    let refuse = |word: &str| UnanalysableReason::ShellInvocation {
        shell: shell.to_owned(),
        word: word.to_owned(),
    };
    let mut command_string = false;
    for at in 0..args.count() {
        // `at` is below the count: the word is there. Were it not, the invocation is refused
        // (unanalysable), never read as a plain program with its payload unread.
        let Some(value) = args.word(at) else {
            return Err(refuse(""));
        };
        *steps += 1;
        let option = value.len() > 1 && (value.starts_with('-') || value.starts_with('+'));
        if !option {
            if !command_string {
                return Ok(Invocation::Plain);
            }
            if let Some(extra) = args.word(at + 1) {
                return Err(refuse(extra));
            }
            return Ok(Invocation::Payload(at));
        }
        if value == "--" && !command_string {
            return Ok(Invocation::Plain);
        }
        // A `+` option has no `-` letters: empty, and refused just below.
        let letters = value.strip_prefix('-').unwrap_or_default();
        if letters.is_empty() {
            return Err(refuse(value));
        }
        for letter in letters.bytes() {
            *steps += 1;
            if !SHELL_LETTERS.contains(&letter) {
                return Err(refuse(value));
            }
            command_string |= letter == b'c';
        }
    }
    if command_string {
        Err(refuse(""))
    } else {
        Ok(Invocation::Plain)
    }
}
