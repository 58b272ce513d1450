//! `seal policy check --explain`: what the rules and the destructive-command guard read in a
//! command, form by form, from the facade's explanation (`seal::explain`). The rules' part is
//! the reading the decision's `rules` line comes from ([`Decided::explanation`]), so both show
//! one evaluation. The explanation is shown next to the decision, never instead of it: the
//! decision is the facade's.
//!
//! [`Decided::explanation`]: crate::policy::Decided::explanation

use seal::destructive::{DestructiveGuard, GuardFinding};
use seal::explain::{
    Explanation, FormExplanation, GuardExplanation, ModelReading, Reading, RuleMatch, COMMAND_TOOL,
};
use seal::json::Value;
use seal::render::{escape, Context};

use crate::json_in;
use crate::json_out::J;
use crate::policy::{CallInput, Mode};

/// The rules' and the guard's explanation of one call.
pub struct Explained<'a> {
    /// The rules' explanation, for a call of the shell tool with a command.
    rules: Option<&'a Explanation>,
    /// The guard's, when it is on and the call has a command.
    guard: Option<GuardExplanation>,
}

/// Explains `call` as `policy check` decided it under `mode`: the rules' reading `rules` (from
/// [`decide`](crate::policy::decide) with `ExplainDepth::Forms`), and the guard's reading with the
/// same workspace (the call's `cwd`, `~` as `HOME`).
pub fn explain<'a>(rules: Option<&'a Reading>, mode: Mode, call: &CallInput<'_>) -> Explained<'a> {
    // The shell tool's command, as the chain reads it (another field is not explained).
    let command = match call.input {
        Value::Object(object) if call.tool == COMMAND_TOOL => {
            json_in::optional_string(object, "command", "tool_input")
                .ok()
                .flatten()
        }
        _ => None,
    };
    let root = call.cwd.filter(|cwd| cwd.starts_with('/'));
    let guard = match command {
        Some(command) if mode.destructive_guard => {
            let mut guard = DestructiveGuard::new();
            if let Some(home) = std::env::var("HOME")
                .ok()
                .filter(|home| home.starts_with('/'))
            {
                guard = guard.with_home_dir(&home);
            }
            if let Some(root) = root {
                guard = guard.with_workspace_root(root);
            }
            Some(guard.explain_command(command))
        }
        _ => None,
    };
    Explained {
        rules: rules.and_then(Reading::command),
        guard,
    }
}

fn inline(text: &str) -> String {
    escape(text, Context::Inline).into_owned()
}

/// The words of a form, escaped and joined by spaces.
fn words(words: &[String]) -> String {
    inline(&words.join(" "))
}

fn rule_text(m: &RuleMatch) -> String {
    format!("{} `{}` ({})", m.effect, inline(&m.text), m.by.as_str())
}

fn finding_text(found: &GuardFinding) -> String {
    let mut out = format!("fires `{}`: {}", found.pattern.id, found.pattern.what);
    if let (Some(path), Some(place)) = (&found.path, found.place) {
        out.push_str(&format!(": `{}` is {place}", inline(path)));
    }
    out
}

fn model_text(model: &ModelReading) -> String {
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            inline(&items.join(" "))
        }
    };
    let mut out = format!(
        "{}; subcommand {}; options {}; operands {}",
        model.program,
        list(&model.subcommand),
        list(&model.options),
        list(&model.operands)
    );
    if model.truncated {
        out.push_str(" (truncated)");
    }
    out
}

/// The guard's finding on form `position` of segment `segment`, if it read that form.
fn guard_on(
    guard: Option<&GuardExplanation>,
    segment: usize,
    position: usize,
) -> Option<Option<&GuardFinding>> {
    guard.map(|guard| {
        guard
            .forms
            .iter()
            .find(|form| form.segment == segment && form.position == position)
            .and_then(|form| form.finding.as_ref())
    })
}

/// The explanation as text lines, indented under `explain:`.
pub fn explained_text(explained: &Explained) -> String {
    let guard = explained.guard.as_ref();
    let mut out = String::from("explain:\n");
    let Some(rules) = explained.rules else {
        out.push_str("  no shell command: the rules read the call's other field (see `rules`)\n");
        return out;
    };
    let mut line = |indent: usize, text: String| {
        out.push_str(&" ".repeat(indent));
        out.push_str(&text);
        out.push('\n');
    };
    for m in &rules.tool {
        line(2, format!("every call of the tool: {}", rule_text(m)));
    }
    if let Some(unanalysable) = &rules.unanalysable {
        line(
            2,
            format!(
                "not analysable ({}): {}",
                unanalysable.code,
                inline(&unanalysable.reason)
            ),
        );
    }
    if let Some(found) = guard.and_then(|g| g.text.as_ref()) {
        line(2, format!("guard on the text: {}", finding_text(found)));
    }
    for m in &rules.written {
        line(2, format!("the command as written: {}", rule_text(m)));
    }
    for m in &rules.readable {
        line(2, format!("a part seal can read of it: {}", rule_text(m)));
    }
    for (at, segment) in rules.segments.iter().enumerate() {
        let depth = if segment.payload_depth > 0 {
            format!(", payload depth {}", segment.payload_depth)
        } else {
            String::new()
        };
        line(2, format!("segment {at} (byte {}{depth}):", segment.start));
        for (position, form) in segment.forms.iter().enumerate() {
            form_lines(form, guard_on(guard, at, position), &mut line);
        }
    }
    for launcher in &rules.launchers {
        line(
            2,
            format!(
                "launcher of segment {}: {}",
                launcher.segment,
                words(&launcher.words)
            ),
        );
        if let Some(why) = launcher.carried {
            line(4, format!("carries code: {why}"));
        }
        if launcher.matches.is_empty() {
            line(4, "rules: none".into());
        }
        for (suffix, m) in &launcher.matches {
            line(4, format!("rule: {} on `{}`", rule_text(m), inline(suffix)));
        }
    }
    for path in &rules.paths {
        let placed = path.absolute.as_deref().map_or_else(
            || "not placed".to_owned(),
            |abs| format!("`{}`", inline(abs)),
        );
        line(
            2,
            format!(
                "path `{}` ({} {}, segment {}): {placed}",
                inline(&path.word),
                inline(&path.program),
                path.access.as_str(),
                path.segment
            ),
        );
        if let Some(why) = path.blocks_allow {
            line(4, format!("an allow stops here: {why}"));
        }
        for m in &path.matches {
            line(4, format!("rule: {}", rule_text(m)));
        }
    }
    line(
        2,
        format!("rules give: {}", inline(&rules.evaluation.to_string())),
    );
    out
}

fn form_lines(
    form: &FormExplanation,
    guard: Option<Option<&GuardFinding>>,
    line: &mut impl FnMut(usize, String),
) {
    let also = if form.also.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = form.also.iter().map(|kind| kind.as_str()).collect();
        format!(" (also {})", names.join(", "))
    };
    line(
        4,
        format!("{}{also}: {}", form.kind.as_str(), words(&form.words)),
    );
    if let Some(model) = &form.model {
        line(6, format!("model: {}", model_text(model)));
    }
    if let Some(carried) = &form.carried {
        line(6, format!("carries code: {}", carried.why));
        if let Some(payload) = &carried.payload {
            line(6, format!("payload: {}", words(payload)));
        }
    }
    if form.matches.is_empty() {
        line(6, "rules: none".into());
    }
    for m in &form.matches {
        line(6, format!("rule: {}", rule_text(m)));
    }
    match guard {
        Some(Some(found)) => line(6, format!("guard: {}", finding_text(found))),
        Some(None) => line(6, "guard: none".into()),
        None => {}
    }
}

fn num(value: usize) -> J {
    J::Num(u64::try_from(value).unwrap_or(u64::MAX))
}

fn strings(items: &[String]) -> J {
    J::Arr(items.iter().map(|item| J::str(item.clone())).collect())
}

fn rule_json(m: &RuleMatch) -> J {
    J::Obj(vec![
        ("effect", J::str(m.effect.to_string())),
        ("rule", J::str(m.text.clone())),
        ("by", J::str(m.by.as_str())),
    ])
}

fn finding_json(found: Option<&GuardFinding>) -> J {
    found.map_or(J::Null, |found| {
        J::Obj(vec![
            ("pattern", J::str(found.pattern.id)),
            ("form", J::str(found.form.clone())),
            ("path", J::opt(found.path.clone())),
            ("place", J::opt(found.place)),
        ])
    })
}

/// The explanation as JSON (spec/cli.md 5.6, `explain`).
pub fn explained_json(explained: &Explained) -> J {
    let guard = explained.guard.as_ref();
    let Some(rules) = explained.rules else {
        return J::Obj(vec![("command", J::Bool(false))]);
    };
    let segments = rules
        .segments
        .iter()
        .enumerate()
        .map(|(at, segment)| {
            let forms = segment
                .forms
                .iter()
                .enumerate()
                .map(|(position, form)| {
                    let model = form.model.as_ref().map_or(J::Null, |model| {
                        J::Obj(vec![
                            ("program", J::str(model.program)),
                            ("subcommand", strings(&model.subcommand)),
                            ("options", strings(&model.options)),
                            ("operands", strings(&model.operands)),
                            ("truncated", J::Bool(model.truncated)),
                        ])
                    });
                    let carried = form.carried.as_ref().map_or(J::Null, |carried| {
                        J::Obj(vec![
                            ("why", J::str(carried.why)),
                            (
                                "payload",
                                carried.payload.as_deref().map_or(J::Null, strings),
                            ),
                        ])
                    });
                    J::Obj(vec![
                        ("kind", J::str(form.kind.as_str())),
                        (
                            "also",
                            J::Arr(form.also.iter().map(|kind| J::str(kind.as_str())).collect()),
                        ),
                        ("words", strings(&form.words)),
                        ("model", model),
                        ("carried", carried),
                        (
                            "rules",
                            J::Arr(form.matches.iter().map(rule_json).collect()),
                        ),
                        (
                            "guard",
                            finding_json(guard_on(guard, at, position).flatten()),
                        ),
                    ])
                })
                .collect();
            J::Obj(vec![
                ("start", num(segment.start)),
                ("payload_depth", num(segment.payload_depth)),
                ("forms", J::Arr(forms)),
            ])
        })
        .collect();
    let launchers = rules
        .launchers
        .iter()
        .map(|launcher| {
            let matches = launcher
                .matches
                .iter()
                .map(|(suffix, m)| {
                    let J::Obj(mut members) = rule_json(m) else {
                        return J::Null;
                    };
                    members.push(("form", J::str(suffix.clone())));
                    J::Obj(members)
                })
                .collect();
            J::Obj(vec![
                ("segment", num(launcher.segment)),
                ("words", strings(&launcher.words)),
                ("rules", J::Arr(matches)),
                ("carried", J::opt(launcher.carried)),
            ])
        })
        .collect();
    let unanalysable = rules.unanalysable.as_ref().map_or(J::Null, |u| {
        J::Obj(vec![
            ("code", J::str(u.code)),
            ("reason", J::str(u.reason.clone())),
        ])
    });
    J::Obj(vec![
        ("command", J::Bool(true)),
        (
            "tool_rules",
            J::Arr(rules.tool.iter().map(rule_json).collect()),
        ),
        ("unanalysable", unanalysable),
        (
            "guard_text",
            finding_json(guard.and_then(|g| g.text.as_ref())),
        ),
        (
            "written",
            J::Arr(rules.written.iter().map(rule_json).collect()),
        ),
        (
            "readable",
            J::Arr(rules.readable.iter().map(rule_json).collect()),
        ),
        ("segments", J::Arr(segments)),
        ("launchers", J::Arr(launchers)),
        (
            "paths",
            J::Arr(
                rules
                    .paths
                    .iter()
                    .map(|path| {
                        J::Obj(vec![
                            ("segment", num(path.segment)),
                            ("program", J::str(inline(&path.program))),
                            ("word", J::str(inline(&path.word))),
                            ("access", J::str(path.access.as_str())),
                            ("absolute", J::opt(path.absolute.as_deref().map(inline))),
                            ("blocks_allow", J::opt(path.blocks_allow.map(str::to_owned))),
                            (
                                "rules",
                                J::Arr(path.matches.iter().map(rule_json).collect()),
                            ),
                        ])
                    })
                    .collect(),
            ),
        ),
        ("rules_decision", J::str(rules.evaluation.to_string())),
    ])
}
