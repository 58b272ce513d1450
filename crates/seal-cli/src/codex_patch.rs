//! Codex `apply_patch` calls in the Codex `PreToolUse` hook (spec/apply-patch.md): the patch in
//! `tool_input.command` is read with [`seal::patch`], and every path it touches is decided
//! as an `Edit` call through the same [`decide`] as every other call, so `Edit(...)` path rules
//! govern patches as they govern Claude Code's edits. A patch that cannot be read is denied
//! (Codex cannot ask); any deny denies; any ask is answered as an ask, which the Codex hook
//! turns into a deny.

use seal::json::{parse_lossless, JsonLimits, Value};
use seal::patch::{Patch, PatchLimits, TouchedPath};
use seal::render::{escape, Context};
use seal::Fallback;

use crate::failure::Failure;
use crate::json_out::J;
use crate::policy::{decide, CallInput, Decided, ExplainDepth, Mode, PolicyAnswer};

/// The tool name Codex gives its patch tool in hook payloads.
pub const TOOL: &str = "apply_patch";

/// The tool each touched path is decided as: Claude Code applies `Edit` rules to every tool
/// that edits files, creating and deleting included.
pub const PATH_TOOL: &str = "Edit";

/// Decides the Codex `apply_patch` call `call` with the rules text `rules`:
///
/// 1. the call as it is, by name, with an allow default: a deny or an ask of a rule (or a guard)
///    for `apply_patch` applies to the whole patch; an allow rule for `apply_patch` becomes the
///    default for the paths below (deny and ask rules on them still win);
/// 2. `tool_input` must be `{"command": "<patch>"}`, and the patch must read; otherwise deny,
///    naming the problem;
/// 3. each touched path, resolved against the payload's `cwd` when relative, is decided as
///    `Edit` with `{"file_path": <path>}` under `fallback` (or allow, after 1.).
///
/// Any deny denies (the reason names the path and the rule); else any ask asks (the Codex hook
/// answers it as a deny); else allow.
pub fn decide_patch(
    rules: &str,
    mode: Mode<'_>,
    call: &CallInput<'_>,
) -> Result<(PolicyAnswer, String), Failure> {
    let by_name = decide(
        rules,
        Mode {
            fallback: Fallback::Allow,
            ..mode
        },
        call,
        ExplainDepth::WhenNoRuleDecided,
    )?;
    let mut ask: Option<String> = None;
    match by_name.answer {
        PolicyAnswer::Deny => {
            return Ok((PolicyAnswer::Deny, format!("seal: {}", explained(&by_name))))
        }
        PolicyAnswer::Ask => ask = Some(format!("seal: {}", explained(&by_name))),
        PolicyAnswer::Allow => {}
    }
    let path_fallback = if by_name.answer == PolicyAnswer::Allow && by_name.matched.is_some() {
        Fallback::Allow
    } else {
        mode.fallback
    };
    let text = match patch_text(call.input) {
        Ok(text) => text,
        Err(problem) => {
            return Ok((
                PolicyAnswer::Deny,
                format!("seal: apply_patch denied: {problem}"),
            ))
        }
    };
    let patch = match Patch::parse(text.as_bytes(), &PatchLimits::DEFAULT) {
        Ok(patch) => patch,
        Err(error) => {
            return Ok((
                PolicyAnswer::Deny,
                format!(
                    "seal: apply_patch denied: the patch cannot be read: {}",
                    inline(&error.to_string())
                ),
            ))
        }
    };
    for touched in patch.paths() {
        let mode = Mode {
            fallback: path_fallback,
            ..mode
        };
        let decided = decide_path(rules, mode, call, touched)?;
        let what = format!(
            "`{}` ({}, patch line {})",
            inline(touched.path),
            touched.operation,
            touched.line
        );
        match decided.answer {
            PolicyAnswer::Deny => {
                return Ok((
                    PolicyAnswer::Deny,
                    format!(
                        "seal: apply_patch denied for {what}: {}",
                        explained(&decided)
                    ),
                ))
            }
            PolicyAnswer::Ask if ask.is_none() => {
                ask = Some(format!(
                    "seal: approval needed for {what}: {}",
                    explained(&decided)
                ));
            }
            PolicyAnswer::Ask | PolicyAnswer::Allow => {}
        }
    }
    Ok(match ask {
        Some(reason) => (PolicyAnswer::Ask, reason),
        None => (
            PolicyAnswer::Allow,
            format!(
                "seal: allowed: every path of the patch ({})",
                patch.paths().len()
            ),
        ),
    })
}

/// The path `touched` as Codex opens it: absolute as written, else joined to `cwd` when that
/// is absolute (Codex resolves patch paths against the turn's working directory, which is the
/// payload's `cwd`), else as written.
pub fn resolved(touched: &TouchedPath<'_>, cwd: Option<&str>) -> String {
    match cwd {
        Some(cwd) if cwd.starts_with('/') && !touched.path.starts_with('/') => {
            format!("{}/{}", cwd.trim_end_matches('/'), touched.path)
        }
        _ => touched.path.to_owned(),
    }
}

/// The patch text of `tool_input`: exactly one member, `command`, a string. Another member
/// (a working directory, say) could change which files the patch touches, so it is refused
/// rather than ignored.
fn patch_text<'a>(input: &'a Value<'a>) -> Result<&'a str, String> {
    let Value::Object(object) = input else {
        return Err("`tool_input` is not an object".into());
    };
    if let Some((key, _)) = object.iter().find(|(key, _)| *key != "command") {
        return Err(format!(
            "`tool_input` has the member `{}`, which seal does not read (only `command`)",
            inline(key)
        ));
    }
    match object.get("command") {
        Some(Value::String(text)) => Ok(text),
        Some(Value::IllFormedString(_)) => {
            Err("`tool_input.command` holds a lone surrogate, so it is not a patch".into())
        }
        Some(_) => Err("`tool_input.command` is not a string".into()),
        None => Err("`tool_input.command` is missing".into()),
    }
}

fn decide_path(
    rules: &str,
    mode: Mode<'_>,
    call: &CallInput<'_>,
    touched: &TouchedPath<'_>,
) -> Result<Decided, Failure> {
    let arguments = J::Obj(vec![("file_path", J::str(resolved(touched, call.cwd)))]).to_text();
    let value = parse_lossless(arguments.as_bytes(), &JsonLimits::DEFAULT).map_err(|error| {
        Failure::input(format!(
            "the arguments of a patch path do not parse: {error}"
        ))
    })?;
    let edit = CallInput {
        tool: PATH_TOOL,
        input: &value,
        session: call.session,
        call_id: call.call_id,
        agent: call.agent,
        cwd: call.cwd,
        permission_mode: None,
    };
    decide(rules, mode, &edit, ExplainDepth::WhenNoRuleDecided)
}

/// The reason of a deny or an ask with the rule that matched, or what the rules saw.
fn explained(decided: &Decided) -> String {
    match &decided.matched {
        Some(matched) => format!("{} [{matched}]", decided.reason),
        None => format!("{} [{}]", decided.reason, decided.rules),
    }
}

fn inline(text: &str) -> String {
    escape(text, Context::Inline).into_owned()
}
