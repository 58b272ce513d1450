//! Why a command is unanalysable: the closed list of reasons and the error carrying one.

use std::fmt;

/// A command the segmenter does not fully understand. A rule engine must never allow it.
///
/// `offset` is a byte offset into the command given to [`segment`](super::segment). When the
/// construct lies inside a shell payload (`bash -c '...'`), `offset` is the start of the
/// outermost payload word in the command, `payload_depth` how many payloads deep it lies, and
/// `payload_offset` its byte offset in the innermost payload text; at depth 0 both offsets are
/// equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unanalysable {
    /// What was not understood.
    pub reason: UnanalysableReason,
    /// Byte offset in the command (see above).
    pub offset: usize,
    /// 0 for the command itself, `n` inside the `n`-th nested payload.
    pub payload_depth: usize,
    /// Byte offset in the innermost payload text (equal to `offset` at depth 0).
    pub payload_offset: usize,
}

impl fmt::Display for Unanalysable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unanalysable at byte {}: {}", self.offset, self.reason)?;
        if self.payload_depth > 0 {
            write!(
                f,
                " (in shell payload depth {}, byte {})",
                self.payload_depth, self.payload_offset
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Unanalysable {}

/// The construct that made a command unanalysable. Every case is a shape whose meaning a
/// per-segment rule cannot see (expansion, redirection, grouping, hidden characters...) or a
/// limit; spec/shell-segments.md gives an example and the reason for each.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UnanalysableReason {
    /// The command is longer than [`ShellLimits::max_bytes`](super::ShellLimits::max_bytes).
    TooLong {
        /// The command length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// More segments than [`ShellLimits::max_segments`](super::ShellLimits::max_segments).
    TooManySegments {
        /// The limit.
        max: usize,
    },
    /// A segment with more words than [`ShellLimits::max_words`](super::ShellLimits::max_words).
    TooManyWords {
        /// The limit.
        max: usize,
    },
    /// Shell payloads nested deeper than
    /// [`ShellLimits::max_payload_depth`](super::ShellLimits::max_payload_depth).
    PayloadTooDeep {
        /// The limit.
        max: usize,
    },
    /// The command (or a shell payload) has no word at all.
    EmptyCommand,
    /// An operator with no command before it: a leading `&&`, `;;`, `| |`, `;&`.
    EmptySegment,
    /// The command ends with `&&`, `||`, `|` or `|&` and nothing after it.
    DanglingOperator,
    /// A single or double quote that is never closed.
    UnterminatedQuote {
        /// The quote character.
        quote: char,
    },
    /// A backslash at the very end of the command.
    TrailingBackslash,
    /// A backslash-newline line continuation that would join two pieces of one word.
    ContinuationInWord,
    /// Command substitution `$(...)`.
    CommandSubstitution,
    /// Command substitution with backticks.
    Backtick,
    /// Arithmetic expansion `$((...))`.
    Arithmetic,
    /// Parameter expansion: `$NAME`, `${...}`, `$1`, `$@`, `$?`...
    ParameterExpansion,
    /// Any other `$` outside single quotes (a lone `$` included).
    Dollar,
    /// ANSI-C quoting `$'...'`.
    AnsiCQuote,
    /// Locale quoting `$"..."`.
    LocaleQuote,
    /// Process substitution `<(...)` or `>(...)`.
    ProcessSubstitution,
    /// A redirection other than the harmless ones (`>`, `>>`, `>|`, `1>`, `2>`, `1>>`, `2>>`,
    /// `&>`, `&>>` to `/dev/null`; `<`, `0<` from it; `2>&1`, `1>&2`, `>&2`): another target,
    /// descriptor or operator (`2>x`, `3>`, `<>`, `<&`, `>&-`...), or a segment of harmless
    /// redirections and no word.
    Redirection,
    /// A here-document `<<`.
    Heredoc,
    /// A here-string `<<<`.
    HereString,
    /// An unquoted `(` or `)`: subshell, function definition, arithmetic command, array
    /// assignment, extended glob.
    Subshell,
    /// A brace group `{ ...; }`: an unquoted `{` or `}` standing alone as a word.
    BraceGroup,
    /// An unquoted `{` or `}` inside a word: brace expansion.
    BraceExpansion,
    /// An unquoted `#` starting a word (a comment in non-interactive shells, a word in
    /// interactive ones).
    Comment,
    /// An unquoted `!`: pipeline negation or history expansion.
    Bang,
    /// A C0 control character other than TAB and LF, DEL, or a C1 control, anywhere.
    ControlCharacter {
        /// The code point.
        code: u32,
    },
    /// A non-ASCII whitespace character, anywhere.
    UnicodeSpace {
        /// The code point.
        code: u32,
    },
    /// An invisible, format, bidi-control, variation-selector or tag character, anywhere.
    InvisibleCharacter {
        /// The code point.
        code: u32,
    },
    /// The program word is empty (`''`).
    EmptyProgram,
    /// The program word has a non-ASCII character (lookalikes such as Cyrillic `гm`).
    NonAsciiProgram {
        /// The program word.
        word: String,
    },
    /// The program word has an unquoted glob character `*`, `?`, `[` or `^`.
    GlobInProgram {
        /// The program word.
        word: String,
    },
    /// The program word starts with an unquoted `~` (tilde expansion).
    TildeInProgram {
        /// The program word.
        word: String,
    },
    /// The program word starts with an unquoted `=` (zsh `=command` expansion).
    EqualsInProgram {
        /// The program word.
        word: String,
    },
    /// A reserved word in program position (`if`, `for`, `while`, `case`, `function`, ...).
    Keyword {
        /// The word.
        word: String,
    },
    /// A builtin that runs text as shell code or changes how later words parse (`eval`,
    /// `source`, `.`, `alias`, `trap`, `fc`, `enable`).
    EvalBuiltin {
        /// The word.
        word: String,
    },
    /// A segment of assignments only (`PATH=.`), which changes how later segments run.
    AssignmentOnly,
    /// A leading assignment with an unquoted `~` (tilde expansion in the value).
    AssignmentExpansion {
        /// The assignment word.
        word: String,
    },
    /// A wrapper (`sudo`, `env`, `timeout`, ...) with an option not in its documented table.
    WrapperOption {
        /// The wrapper name.
        wrapper: String,
        /// The option word.
        option: String,
    },
    /// A wrapper operand that is not of the documented shape (a `timeout` duration).
    WrapperOperand {
        /// The wrapper name.
        wrapper: String,
        /// The operand word.
        operand: String,
    },
    /// A shell invocation that cannot be unwrapped: an option outside the documented letters, a
    /// long option, `-c` without a payload, or words after the payload.
    ShellInvocation {
        /// The shell name.
        shell: String,
        /// The word that stopped unwrapping (empty when the payload is missing).
        word: String,
    },
    /// A shell or multi-call binary whose arguments are not analysed (`fish`, `csh`,
    /// `busybox`, `pwsh`, ...), given any argument.
    UnsupportedShell {
        /// The program name.
        shell: String,
    },
}

impl UnanalysableReason {
    /// A stable snake_case identifier of the case, for logs and golden vectors.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            UnanalysableReason::TooLong { .. } => "too_long",
            UnanalysableReason::TooManySegments { .. } => "too_many_segments",
            UnanalysableReason::TooManyWords { .. } => "too_many_words",
            UnanalysableReason::PayloadTooDeep { .. } => "payload_too_deep",
            UnanalysableReason::EmptyCommand => "empty_command",
            UnanalysableReason::EmptySegment => "empty_segment",
            UnanalysableReason::DanglingOperator => "dangling_operator",
            UnanalysableReason::UnterminatedQuote { .. } => "unterminated_quote",
            UnanalysableReason::TrailingBackslash => "trailing_backslash",
            UnanalysableReason::ContinuationInWord => "continuation_in_word",
            UnanalysableReason::CommandSubstitution => "command_substitution",
            UnanalysableReason::Backtick => "backtick",
            UnanalysableReason::Arithmetic => "arithmetic",
            UnanalysableReason::ParameterExpansion => "parameter_expansion",
            UnanalysableReason::Dollar => "dollar",
            UnanalysableReason::AnsiCQuote => "ansi_c_quote",
            UnanalysableReason::LocaleQuote => "locale_quote",
            UnanalysableReason::ProcessSubstitution => "process_substitution",
            UnanalysableReason::Redirection => "redirection",
            UnanalysableReason::Heredoc => "heredoc",
            UnanalysableReason::HereString => "here_string",
            UnanalysableReason::Subshell => "subshell",
            UnanalysableReason::BraceGroup => "brace_group",
            UnanalysableReason::BraceExpansion => "brace_expansion",
            UnanalysableReason::Comment => "comment",
            UnanalysableReason::Bang => "bang",
            UnanalysableReason::ControlCharacter { .. } => "control_character",
            UnanalysableReason::UnicodeSpace { .. } => "unicode_space",
            UnanalysableReason::InvisibleCharacter { .. } => "invisible_character",
            UnanalysableReason::EmptyProgram => "empty_program",
            UnanalysableReason::NonAsciiProgram { .. } => "non_ascii_program",
            UnanalysableReason::GlobInProgram { .. } => "glob_in_program",
            UnanalysableReason::TildeInProgram { .. } => "tilde_in_program",
            UnanalysableReason::EqualsInProgram { .. } => "equals_in_program",
            UnanalysableReason::Keyword { .. } => "keyword",
            UnanalysableReason::EvalBuiltin { .. } => "eval_builtin",
            UnanalysableReason::AssignmentOnly => "assignment_only",
            UnanalysableReason::AssignmentExpansion { .. } => "assignment_expansion",
            UnanalysableReason::WrapperOption { .. } => "wrapper_option",
            UnanalysableReason::WrapperOperand { .. } => "wrapper_operand",
            UnanalysableReason::ShellInvocation { .. } => "shell_invocation",
            UnanalysableReason::UnsupportedShell { .. } => "unsupported_shell",
        }
    }
}

/// A short description naming the words it is about as they are, unescaped: a word may hold
/// any character, so whoever shows the reason escapes it once, for where it is shown (the
/// product renders reasons through the renderer's inline escape).
impl fmt::Display for UnanalysableReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnanalysableReason::TooLong { len, max } => {
                write!(
                    f,
                    "command of {len} bytes is longer than the limit of {max}"
                )
            }
            UnanalysableReason::TooManySegments { max } => write!(f, "more than {max} segments"),
            UnanalysableReason::TooManyWords { max } => {
                write!(f, "a segment has more than {max} words")
            }
            UnanalysableReason::PayloadTooDeep { max } => {
                write!(f, "shell payloads nested deeper than {max}")
            }
            UnanalysableReason::EmptyCommand => f.write_str("empty command"),
            UnanalysableReason::EmptySegment => f.write_str("operator with no command before it"),
            UnanalysableReason::DanglingOperator => f.write_str("command ends with an operator"),
            UnanalysableReason::UnterminatedQuote { quote } => {
                write!(f, "unterminated `{quote}` quote")
            }
            UnanalysableReason::TrailingBackslash => f.write_str("trailing backslash"),
            UnanalysableReason::ContinuationInWord => {
                f.write_str("line continuation inside a word")
            }
            UnanalysableReason::CommandSubstitution => f.write_str("command substitution `$(`"),
            UnanalysableReason::Backtick => f.write_str("backtick command substitution"),
            UnanalysableReason::Arithmetic => f.write_str("arithmetic expansion `$((`"),
            UnanalysableReason::ParameterExpansion => f.write_str("parameter expansion"),
            UnanalysableReason::Dollar => f.write_str("`$` outside single quotes"),
            UnanalysableReason::AnsiCQuote => f.write_str("ANSI-C quoting `$'`"),
            UnanalysableReason::LocaleQuote => f.write_str("locale quoting `$\"`"),
            UnanalysableReason::ProcessSubstitution => f.write_str("process substitution"),
            UnanalysableReason::Redirection => f.write_str("redirection"),
            UnanalysableReason::Heredoc => f.write_str("here-document `<<`"),
            UnanalysableReason::HereString => f.write_str("here-string `<<<`"),
            UnanalysableReason::Subshell => f.write_str("unquoted parenthesis"),
            UnanalysableReason::BraceGroup => f.write_str("brace group"),
            UnanalysableReason::BraceExpansion => f.write_str("unquoted brace in a word"),
            UnanalysableReason::Comment => f.write_str("comment `#`"),
            UnanalysableReason::Bang => f.write_str("unquoted `!`"),
            UnanalysableReason::ControlCharacter { code } => {
                write!(f, "control character U+{code:04X}")
            }
            UnanalysableReason::UnicodeSpace { code } => write!(f, "non-ASCII space U+{code:04X}"),
            UnanalysableReason::InvisibleCharacter { code } => {
                write!(f, "invisible character U+{code:04X}")
            }
            UnanalysableReason::EmptyProgram => f.write_str("empty program word"),
            UnanalysableReason::NonAsciiProgram { word } => {
                write!(f, "non-ASCII program `{}`", word)
            }
            UnanalysableReason::GlobInProgram { word } => {
                write!(f, "glob in program `{}`", word)
            }
            UnanalysableReason::TildeInProgram { word } => {
                write!(f, "tilde expansion in program `{}`", word)
            }
            UnanalysableReason::EqualsInProgram { word } => {
                write!(f, "`=` expansion in program `{}`", word)
            }
            UnanalysableReason::Keyword { word } => {
                write!(f, "reserved word `{}`", word)
            }
            UnanalysableReason::EvalBuiltin { word } => {
                write!(f, "code-evaluating builtin `{}`", word)
            }
            UnanalysableReason::AssignmentOnly => f.write_str("assignments with no command"),
            UnanalysableReason::AssignmentExpansion { word } => {
                write!(f, "expansion in assignment `{}`", word)
            }
            UnanalysableReason::WrapperOption { wrapper, option } => {
                write!(f, "unknown option `{}` of wrapper `{}`", option, wrapper)
            }
            UnanalysableReason::WrapperOperand { wrapper, operand } => write!(
                f,
                "unexpected operand `{}` of wrapper `{}`",
                operand, wrapper
            ),
            UnanalysableReason::ShellInvocation { shell, word } if word.is_empty() => {
                write!(f, "`{} -c` without a payload", shell)
            }
            UnanalysableReason::ShellInvocation { shell, word } => {
                write!(f, "cannot unwrap `{}` at `{}`", shell, word)
            }
            UnanalysableReason::UnsupportedShell { shell } => {
                write!(f, "arguments of `{}` are not analysed", shell)
            }
        }
    }
}
