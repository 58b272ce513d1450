//! Which command line an approval card may show.

use seal_parse::json::{parse_lossless, JsonLimits, Value};

use crate::chain::{SubjectKind, ToolCall, ToolField, MAX_LOSSLESS_ARGUMENTS_BYTES};

/// The command line a card shows for a call of `tool` whose canonical JSON arguments are
/// `arguments`, or `None` when it shows none.
///
/// A command is shown only for a shell tool (a tool whose row of
/// [`TOOL_FIELDS`](crate::chain::TOOL_FIELDS) has the [`SubjectKind::Command`] kind) whose
/// arguments are a JSON object with that row's field (`command`) at the top level holding a
/// string of Unicode scalar values. Arguments that do not parse (the lossless profile, up to
/// [`MAX_LOSSLESS_ARGUMENTS_BYTES`]), that are not an object, whose `command` is missing, is
/// not a string, is a string with a lone surrogate, or sits inside another member, and calls of
/// any other tool, show none. The text is returned raw: escaping it for display is the
/// renderer's business.
///
/// ```
/// use seal_policy::approval::trust::card_command;
///
/// assert_eq!(card_command("Bash", br#"{"command":"ls -l"}"#).as_deref(), Some("ls -l"));
/// assert_eq!(card_command("Bash", br#"{"input":{"command":"ls"}}"#), None);
/// assert_eq!(card_command("Read", br#"{"command":"ls"}"#), None);
/// ```
#[must_use]
pub fn card_command(tool: &str, arguments: &[u8]) -> Option<String> {
    shell_field(tool)?;
    let mut limits = JsonLimits::default();
    limits.max_bytes = MAX_LOSSLESS_ARGUMENTS_BYTES;
    let value = parse_lossless(arguments, &limits).ok()?;
    command_in(tool, &value).map(str::to_owned)
}

/// The command line a card shows for a frozen call: the rule of [`card_command`] over the
/// call's tool and frozen arguments, borrowed from the call.
#[must_use]
pub fn card_command_of(call: &ToolCall) -> Option<&str> {
    command_in(call.tool(), call.sealed().arguments())
}

/// The string at the shell field of `tool`, at the top level of `arguments`.
fn command_in<'v>(tool: &str, arguments: &'v Value<'_>) -> Option<&'v str> {
    let field = shell_field(tool)?;
    arguments.as_object()?.get(field)?.as_str()
}

/// The field holding the command, when `tool` is a shell tool of the one table.
fn shell_field(tool: &str) -> Option<&'static str> {
    ToolField::of(tool)
        .filter(|row| row.kind == Some(SubjectKind::Command))
        .map(|row| row.field)
}
