//! Claude Code's default permission mode, as seal models it: the read-only commands, reads and
//! tools the client lets run with no rule (spec/policy-rules.md, "The client's default mode").
//!
//! The model is a table of programs, each with the options it may take and what its operands
//! are. It is a subset of what Claude Code 2.1.328 was seen to allow: every program, option and
//! operand form below was observed allowed with no rule, and the forms next to them that
//! Claude Code asked for (an option that writes, a path outside the workspace, a `..`) are not
//! in it. Anything the table does not describe is not read-only.

mod commands;
mod edits;
mod plain;
mod table;

pub(super) use commands::read_only;
pub(super) use edits::accepted_edit;
pub(super) use plain::safe_assignment;

/// What a client decides on its own when no permission rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ClientDefault {
    /// Nothing is allowed without a rule: a call no rule decides is left undecided (the
    /// embedder's fallback applies).
    #[default]
    Nothing,
    /// Claude Code's default permission mode: a command whose every segment is read-only or
    /// allowed by a rule, a `Read` of a path inside the workspace, and `Agent`, `Task` and
    /// `Skill` calls are allowed with no rule (deny and ask rules still come first).
    ClaudeCode,
    /// Claude Code's accept-edits permission mode: what [`ClientDefault::ClaudeCode`] allows,
    /// and edits inside the workspace: `Write`, `Edit`, `MultiEdit` and `NotebookEdit` calls,
    /// and the segments `mkdir`, `touch`, `rm`, `rmdir`, `cp`, `mv` and `sed -i` whose every
    /// path is inside it.
    ClaudeCodeAcceptEdits,
}

impl ClientDefault {
    /// A stable name: `nothing` or `claude-code`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ClientDefault::Nothing => "nothing",
            ClientDefault::ClaudeCode => "claude-code",
            ClientDefault::ClaudeCodeAcceptEdits => "claude-code-accept-edits",
        }
    }
}

impl ClientDefault {
    /// Whether this is one of Claude Code's modes.
    pub(super) fn is_claude_code(self) -> bool {
        matches!(
            self,
            ClientDefault::ClaudeCode | ClientDefault::ClaudeCodeAcceptEdits
        )
    }
}

/// The tools Claude Code's default mode runs with no permission check.
pub(super) fn runs_unchecked(tool: &str) -> bool {
    matches!(tool, "Agent" | "Task" | "Skill")
}

/// Whether Claude Code's `mode` allows a call of the file tool `tool` on a path inside the
/// workspace with no rule: `Read` in every mode; in accept-edits mode the editing tools too,
/// except on a path with a component Claude Code's safety check asks about (`path`, the path
/// relative to the directory it lies in).
pub(super) fn allows_file_tool(mode: ClientDefault, tool: &str, path: &str) -> bool {
    match tool {
        "Read" => mode.is_claude_code(),
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            mode == ClientDefault::ClaudeCodeAcceptEdits && !guarded_component(path)
        }
        _ => false,
    }
}

/// Whether `tool` is one of the editing file tools.
pub(super) fn edits(tool: &str) -> bool {
    matches!(tool, "Write" | "Edit" | "MultiEdit" | "NotebookEdit")
}

/// Components whose files Claude Code 2.1.332 asks before writing in every mode (its own
/// settings, git's internals), and neighbours seal treats the same way.
const GUARDED_COMPONENTS: &[&str] = &[".git", ".claude", ".vscode", ".idea", ".husky", ".mcp.json"];

/// Whether a path has a component of [`GUARDED_COMPONENTS`].
pub(super) fn guarded_component(path: &str) -> bool {
    path.split('/')
        .any(|part| GUARDED_COMPONENTS.contains(&part))
}

/// A word with no byte a shell could read as anything but text, and no control character.
pub(super) fn literal(word: &str) -> bool {
    !word
        .bytes()
        .any(|b| b < 0x20 || b == 0x7f || matches!(b, b'$' | b'`' | b'\\'))
}

/// A non-negative integer in ASCII digits.
pub(super) fn number(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}
