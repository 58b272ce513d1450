//! seal's hook entries in a client's hook settings: finding them, and planning the textual edit
//! that writes or removes them (spec/install.md).
//!
//! Both clients read the same shape: `{"hooks": {"<Event>": [{"matcher": "...", "hooks":
//! [{"type": "command", "command": "...", "timeout": N}]}]}}`. A handler is seal's when its
//! command runs a program named `seal...` with `hook claude-code` or `hook codex` as its next
//! words (after any `NAME=value` assignments).

use super::json_text::{self, append, apply, parse, remove, replace, Kind, Layout, Node, Out};
use super::{events, HookEntry};

/// The program the commands run unless `--binary` says otherwise: `seal`, as the client's
/// `PATH` finds it, so an upgrade changes no hook definition.
pub const DEFAULT_BINARY: &str = "seal";

/// A client whose hooks seal answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code (`settings.json`).
    ClaudeCode,
    /// Codex (`hooks.json`).
    Codex,
}

impl Client {
    /// The word of `seal hook <client>`.
    pub fn word(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Codex => "codex",
        }
    }

    /// The client's name.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::Codex => "Codex",
        }
    }
}

/// The files written into the commands (absolute paths, or a Redis URL for the state).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Files {
    /// `--rules`, for the tool hooks.
    pub rules: Option<String>,
    /// `--store`.
    pub store: Option<String>,
    /// `--keys`.
    pub keys: Option<String>,
    /// `--state`.
    pub state: Option<String>,
}

/// What an install writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// The client.
    pub client: Client,
    /// The program the commands run.
    pub binary: String,
    /// The files the commands name.
    pub files: Files,
    /// The hook timeout, in seconds.
    pub timeout: u64,
}

/// An install or uninstall planned for one settings file: the whole new text and a line per event
/// saying what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallPlan {
    /// The settings file's text after the change (the same text when nothing changes).
    pub text: String,
    /// What happened to each event.
    pub report: Vec<String>,
}

/// A word of a command line, quoted for a POSIX shell when it needs to be.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The command seal's hook for `event` runs.
pub fn command(wanted: &Wanted, event: &HookEntry) -> String {
    let mut words = vec![
        quote(&wanted.binary),
        "hook".to_owned(),
        wanted.client.word().to_owned(),
        event.hook.to_owned(),
    ];
    let files = &wanted.files;
    let flags: [(&str, &Option<String>); 4] = if event.frames {
        [
            ("--store", &files.store),
            ("--keys", &files.keys),
            ("--state", &files.state),
            ("", &None),
        ]
    } else {
        [
            ("--rules", &files.rules),
            ("--keys", &files.keys),
            ("--store", &files.store),
            ("--state", &files.state),
        ]
    };
    for (flag, value) in flags {
        if let Some(value) = value {
            words.push(flag.to_owned());
            words.push(quote(value));
        }
    }
    words.join(" ")
}

/// The handler object seal writes for `event`.
pub fn handler(wanted: &Wanted, event: &HookEntry) -> Out {
    Out::Object(vec![
        ("type".into(), Out::String("command".into())),
        ("command".into(), Out::String(command(wanted, event))),
        ("timeout".into(), Out::Number(wanted.timeout)),
    ])
}

/// The matcher group seal writes for `event`: its handler alone.
pub fn group(wanted: &Wanted, event: &HookEntry) -> Out {
    let mut members = Vec::new();
    if let Some(matcher) = event.matcher {
        members.push(("matcher".into(), Out::String(matcher.into())));
    }
    members.push(("hooks".into(), Out::Array(vec![handler(wanted, event)])));
    Out::Object(members)
}

/// The words of a seal hook command: the program, then what follows `hook`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealCommand {
    /// The program as written (`seal`, `/usr/local/bin/seal`).
    pub program: String,
    /// The client word (`claude-code`, `codex`).
    pub client: String,
    /// The hook word (`pre-tool-use`), empty when missing.
    pub hook: String,
    /// The words after the hook word.
    pub args: Vec<String>,
}

impl SealCommand {
    /// The value of `--flag` (as `--flag value` or `--flag=value`).
    pub fn flag(&self, flag: &str) -> Option<&str> {
        let mut words = self.args.iter();
        while let Some(word) = words.next() {
            if word == flag {
                return words.next().map(String::as_str);
            }
            if let Some(value) = word
                .strip_prefix(flag)
                .and_then(|rest| rest.strip_prefix('='))
            {
                return Some(value);
            }
        }
        None
    }
}

/// `command` read as a seal hook command, when it is one.
pub fn seal_command(command: &str) -> Option<SealCommand> {
    let words = shlex::split(command)?;
    let mut words = words
        .into_iter()
        .skip_while(|word| is_assignment(word))
        .peekable();
    let program = words.next()?;
    let base = program.rsplit(['/', '\\']).next().unwrap_or_default();
    if !base.starts_with("seal") {
        return None;
    }
    if words.next()? != "hook" {
        return None;
    }
    let client = words.next()?;
    if client != "claude-code" && client != "codex" {
        return None;
    }
    let hook = words.next().unwrap_or_default();
    Some(SealCommand {
        program,
        client,
        hook,
        args: words.collect(),
    })
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// A seal hook in a settings document.
#[derive(Debug, Clone)]
pub struct Found {
    /// The event it is listed under.
    pub event: String,
    /// Index of its group in the event's list.
    pub group: usize,
    /// Index of the handler in the group's `hooks`.
    pub handler: usize,
    /// Whether it is the only handler of its group.
    pub alone: bool,
    /// The group's `matcher`, when a string.
    pub matcher: Option<String>,
    /// The command as written.
    pub command: String,
    /// The command's words.
    pub seal: SealCommand,
    /// The handler's `timeout`, as written, when a number.
    pub timeout: Option<String>,
    /// The handler's members (key and value).
    pub members: Vec<(String, Kind)>,
}

fn position(text: &str, offset: usize) -> String {
    let (line, column) = json_text::line_column(text, offset);
    format!("line {line} column {column}")
}

/// The `hooks` object of a settings document, when it has one.
///
/// # Errors
///
/// When the document is not an object, or `hooks` is not one.
pub fn hooks_object<'a>(text: &str, root: &'a Node) -> Result<Option<&'a Node>, String> {
    if root.members().is_none() {
        return Err(format!(
            "{}: the settings are not a JSON object",
            position(text, root.start)
        ));
    }
    match root.get("hooks") {
        None => Ok(None),
        Some(member) if member.value.members().is_some() => Ok(Some(&member.value)),
        Some(member) => Err(format!(
            "{}: `hooks` is not an object",
            position(text, member.value.start)
        )),
    }
}

/// Every seal hook of the document, in document order.
///
/// # Errors
///
/// As [`hooks_object`], and when an event's value is not a list (a hook settings shape the
/// client would not read either).
pub fn find(text: &str, root: &Node) -> Result<Vec<Found>, String> {
    collect(text, root, seal_command)
}

/// Every command handler of the document that `read` takes, in document order.
///
/// # Errors
///
/// As [`find`].
pub fn collect(
    text: &str,
    root: &Node,
    read: impl Fn(&str) -> Option<SealCommand>,
) -> Result<Vec<Found>, String> {
    let mut found = Vec::new();
    let Some(hooks) = hooks_object(text, root)? else {
        return Ok(found);
    };
    for event in hooks.members().unwrap_or_default() {
        let Some(groups) = event.value.elements() else {
            return Err(format!(
                "{}: the hooks of `{}` are not a list",
                position(text, event.value.start),
                event.key.escape_default()
            ));
        };
        for (group_index, group) in groups.iter().enumerate() {
            let Some(handlers) = group.get("hooks").and_then(|m| m.value.elements()) else {
                continue;
            };
            let matcher = group
                .get("matcher")
                .and_then(|m| m.value.as_str())
                .map(str::to_owned);
            for (handler_index, handler) in handlers.iter().enumerate() {
                let Some(command) = handler.get("command").and_then(|m| m.value.as_str()) else {
                    continue;
                };
                let Some(seal) = read(command) else {
                    continue;
                };
                let timeout = handler.get("timeout").and_then(|m| match &m.value.kind {
                    Kind::Number(number) => Some(number.clone()),
                    _ => None,
                });
                let members = handler
                    .members()
                    .unwrap_or_default()
                    .iter()
                    .map(|m| (m.key.clone(), m.value.kind.clone()))
                    .collect();
                found.push(Found {
                    event: event.key.clone(),
                    group: group_index,
                    handler: handler_index,
                    alone: handlers.len() == 1,
                    matcher: matcher.clone(),
                    command: command.to_owned(),
                    seal,
                    timeout,
                    members,
                });
            }
        }
    }
    Ok(found)
}

/// Whether the written value `node` is `out` (members in any order).
fn same(node: &Node, out: &Out) -> bool {
    match (&node.kind, out) {
        (Kind::String(text), Out::String(wanted)) => text == wanted,
        (Kind::Number(text), Out::Number(wanted)) => *text == wanted.to_string(),
        (Kind::Array(items), Out::Array(wanted)) => {
            items.len() == wanted.len() && items.iter().zip(wanted).all(|(a, b)| same(a, b))
        }
        (Kind::Object(members), Out::Object(wanted)) => {
            members.len() == wanted.len()
                && wanted.iter().all(|(key, value)| {
                    members
                        .iter()
                        .any(|member| member.key == *key && same(&member.value, value))
                })
        }
        _ => false,
    }
}

/// The `index`th group of `event` in `hooks`, with its list.
fn group_nodes<'a>(hooks: &'a Node, event: &str, index: usize) -> Option<(&'a Node, &'a Node)> {
    let list = &hooks.get(event)?.value;
    let group = list.elements()?.get(index)?;
    Some((list, group))
}

enum Step {
    Done,
    Edit(json_text::Edit),
}

/// What an install changes in one event: nothing, a new group, a changed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Unchanged,
    Added,
    Updated,
}

fn install_step(
    text: &str,
    root: &Node,
    event: &HookEntry,
    wanted: &Wanted,
    layout: &Layout,
    change: &mut Change,
) -> Result<Step, String> {
    let group_out = group(wanted, event);
    let Some(hooks) = hooks_object(text, root)? else {
        *change = Change::Added;
        let value = Out::Object(vec![(event.name.into(), Out::Array(vec![group_out]))]);
        return Ok(Step::Edit(append(
            text,
            root,
            Some("hooks"),
            &value,
            layout,
        )));
    };
    let Some(list) = hooks.get(event.name) else {
        *change = Change::Added;
        let value = Out::Array(vec![group_out]);
        return Ok(Step::Edit(append(
            text,
            hooks,
            Some(event.name),
            &value,
            layout,
        )));
    };
    if list.value.elements().is_none() {
        return Err(format!(
            "{}: the hooks of `{}` are not a list",
            position(text, list.value.start),
            event.name
        ));
    }
    let ours: Vec<Found> = find(text, root)?
        .into_iter()
        .filter(|found| found.event == event.name)
        .collect();
    let Some(first) = ours.first() else {
        *change = Change::Added;
        return Ok(Step::Edit(append(
            text,
            &list.value,
            None,
            &group_out,
            layout,
        )));
    };
    let Some((_, group_node)) = group_nodes(hooks, event.name, first.group) else {
        return Err("internal: a found hook's group is gone".into());
    };
    let handlers = group_node
        .get("hooks")
        .and_then(|m| m.value.elements())
        .unwrap_or_default();
    let Some(handler_node) = handlers.get(first.handler) else {
        return Err("internal: a found hook's handler is gone".into());
    };
    let handler_out = handler(wanted, event);
    if first.alone {
        if !same(group_node, &group_out) {
            if *change == Change::Unchanged {
                *change = Change::Updated;
            }
            return Ok(Step::Edit(replace(text, group_node, &group_out, layout)));
        }
    } else if !same(handler_node, &handler_out) {
        if *change == Change::Unchanged {
            *change = Change::Updated;
        }
        return Ok(Step::Edit(replace(
            text,
            handler_node,
            &handler_out,
            layout,
        )));
    }
    // The first is as wanted: a second seal hook under the same event would run twice.
    match ours.get(1) {
        None => Ok(Step::Done),
        Some(extra) => {
            if *change == Change::Unchanged {
                *change = Change::Updated;
            }
            removal(text, root, extra).map(Step::Edit)
        }
    }
}

/// The edit removing the seal hook `found`: its handler, its group when it is alone there, the
/// event when that was its only group, and `hooks` when that was its only event.
fn removal(text: &str, root: &Node, found: &Found) -> Result<json_text::Edit, String> {
    let internal = || "internal: a found hook is gone".to_owned();
    let hooks = hooks_object(text, root)?.ok_or_else(internal)?;
    let (list, group_node) = group_nodes(hooks, &found.event, found.group).ok_or_else(internal)?;
    if !found.alone {
        let handlers = &group_node.get("hooks").ok_or_else(internal)?.value;
        return remove(handlers, found.handler).ok_or_else(internal);
    }
    if list.elements().map_or(0, <[Node]>::len) > 1 {
        return remove(list, found.group).ok_or_else(internal);
    }
    let members = hooks.members().unwrap_or_default();
    if members.len() > 1 {
        let index = members
            .iter()
            .position(|member| member.key == found.event)
            .ok_or_else(internal)?;
        return remove(hooks, index).ok_or_else(internal);
    }
    let index = root
        .members()
        .unwrap_or_default()
        .iter()
        .position(|member| member.key == "hooks")
        .ok_or_else(internal)?;
    remove(root, index).ok_or_else(internal)
}

/// The bound on the edits one install or uninstall makes (each adds, replaces or removes one
/// seal hook; a file with more seal hooks than this is refused).
pub const MAX_EDITS: usize = 256;

/// Plans writing seal's hooks for every event of the client into `before` (`None`: no file).
///
/// # Errors
///
/// A text that is not JSON (with its line and column), or whose hook settings do not have the
/// client's shape.
pub fn install(before: Option<&str>, wanted: &Wanted) -> Result<InstallPlan, String> {
    let mut text = match before {
        Some(text) => text.to_owned(),
        None => "{}\n".to_owned(),
    };
    let layout = Layout::of(&text);
    let original = parse(&text).map_err(|error| error.to_string())?;
    let kept = without_seal(&text, &original)?;
    let mut report = Vec::new();
    let mut edits = 0;
    for event in events(wanted.client) {
        if event.frames && wanted.files.store.is_none() {
            let root = parse(&text).map_err(|error| error.to_string())?;
            let present = find(&text, &root)?.iter().any(|f| f.event == event.name);
            report.push(if present {
                format!("{:<22} kept as it is (no --store given)", event.name)
            } else {
                format!(
                    "{:<22} not written: frames are verified only with --store and --keys (seal keygen makes them)",
                    event.name
                )
            });
            continue;
        }
        let mut change = Change::Unchanged;
        loop {
            let root = parse(&text).map_err(|error| error.to_string())?;
            match install_step(&text, &root, event, wanted, &layout, &mut change)? {
                Step::Done => break,
                Step::Edit(edit) => {
                    edits += 1;
                    if edits > MAX_EDITS {
                        return Err(format!("more than {MAX_EDITS} seal hooks to change"));
                    }
                    text = apply(&text, &[edit]);
                }
            }
        }
        let word = match change {
            Change::Unchanged => "unchanged",
            Change::Added => "added",
            Change::Updated => "updated",
        };
        report.push(format!(
            "{:<22} {word:<9} {}",
            event.name,
            command(wanted, event)
        ));
    }
    check_kept(&text, &kept)?;
    Ok(InstallPlan { text, report })
}

/// Plans removing every seal hook from `before`.
///
/// # Errors
///
/// As [`install`].
pub fn uninstall(before: &str, client: Client) -> Result<InstallPlan, String> {
    let mut text = before.to_owned();
    let original = parse(&text).map_err(|error| error.to_string())?;
    let kept = without_seal(&text, &original)?;
    let mut report = Vec::new();
    for _ in 0..=MAX_EDITS {
        let root = parse(&text).map_err(|error| error.to_string())?;
        let found = find(&text, &root)?;
        let Some(first) = found.first() else {
            if report.is_empty() {
                report.push(format!("no seal hook for {} here", client.name()));
            }
            check_kept(&text, &kept)?;
            return Ok(InstallPlan { text, report });
        };
        report.push(format!("{:<22} removed   {}", first.event, first.command));
        let edit = removal(&text, &root, first)?;
        text = apply(&text, &[edit]);
    }
    Err(format!("more than {MAX_EDITS} seal hooks to remove"))
}

/// The document as a comparable value with every seal hook taken out (and the groups, events
/// and `hooks` object that held nothing else): what an install or uninstall must leave equal.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Object(Vec<(String, Value)>),
    Array(Vec<Value>),
    Scalar(String),
}

fn value(node: &Node, text: &str) -> Value {
    match &node.kind {
        Kind::Object(members) => Value::Object(
            members
                .iter()
                .map(|member| (member.key.clone(), value(&member.value, text)))
                .collect(),
        ),
        Kind::Array(items) => Value::Array(items.iter().map(|item| value(item, text)).collect()),
        _ => Value::Scalar(
            text.get(node.start..node.end)
                .unwrap_or_default()
                .to_owned(),
        ),
    }
}

fn without_seal(text: &str, root: &Node) -> Result<Value, String> {
    let Value::Object(mut members) = value(root, text) else {
        return Err(format!(
            "{}: the settings are not a JSON object",
            position(text, root.start)
        ));
    };
    let Some(hooks) = hooks_object(text, root)? else {
        return Ok(Value::Object(members));
    };
    let mut kept_events = Vec::new();
    for event in hooks.members().unwrap_or_default() {
        let Some(groups) = event.value.elements() else {
            kept_events.push((event.key.clone(), value(&event.value, text)));
            continue;
        };
        let mut kept_groups = Vec::new();
        for group in groups {
            let Some(handlers) = group.get("hooks").and_then(|m| m.value.elements()) else {
                kept_groups.push(value(group, text));
                continue;
            };
            let others: Vec<&Node> = handlers
                .iter()
                .filter(|handler| {
                    handler
                        .get("command")
                        .and_then(|m| m.value.as_str())
                        .and_then(seal_command)
                        .is_none()
                })
                .collect();
            if others.len() == handlers.len() {
                kept_groups.push(value(group, text));
            } else if !others.is_empty() {
                let Value::Object(mut group_members) = value(group, text) else {
                    continue;
                };
                for (key, member) in &mut group_members {
                    if key == "hooks" {
                        *member = Value::Array(others.iter().map(|h| value(h, text)).collect());
                    }
                }
                kept_groups.push(Value::Object(group_members));
            }
        }
        // An event left with no group, and `hooks` left with no event, are the same as none:
        // an uninstall removes what its removal empties.
        if !kept_groups.is_empty() {
            kept_events.push((event.key.clone(), Value::Array(kept_groups)));
        }
    }
    members.retain(|(key, _)| key != "hooks" || !kept_events.is_empty());
    for (key, member) in &mut members {
        if key == "hooks" {
            *member = Value::Object(kept_events.clone());
        }
    }
    Ok(Value::Object(members))
}

fn check_kept(text: &str, kept: &Value) -> Result<(), String> {
    let root = parse(text).map_err(|error| format!("internal: the edit is not JSON: {error}"))?;
    if without_seal(text, &root)? == *kept {
        Ok(())
    } else {
        Err("internal: the edit would change settings other than seal's hooks".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wanted() -> Wanted {
        Wanted {
            client: Client::ClaudeCode,
            binary: DEFAULT_BINARY.into(),
            files: Files {
                rules: Some("/r.json".into()),
                ..Files::default()
            },
            timeout: 60,
        }
    }

    #[test]
    fn seal_commands_are_read_as_the_shell_splits_them() {
        let read = |text: &str| seal_command(text).map(|c| (c.program, c.client, c.hook));
        let ours = |program: &str, client: &str, hook: &str| {
            Some((program.to_owned(), client.to_owned(), hook.to_owned()))
        };
        assert_eq!(
            read("seal hook codex pre-tool-use"),
            ours("seal", "codex", "pre-tool-use")
        );
        assert_eq!(
            read("A=1 B_2= '/opt/my seal/seal' hook claude-code"),
            ours("/opt/my seal/seal", "claude-code", "")
        );
        for other in [
            "=1 seal hook codex pre-tool-use",
            "1A=1 seal hook codex pre-tool-use",
            "A-B=1 seal hook codex pre-tool-use",
            "seal doctor",
            "seal hook cursor pre-tool-use",
            "dcg hook codex pre-tool-use",
            "seal 'hook",
            "",
        ] {
            assert_eq!(read(other), None, "{other}");
        }
        let command = seal_command("seal hook codex pre-tool-use --rules r --deadline=45 --x")
            .expect("seal's");
        assert_eq!(command.flag("--rules"), Some("r"));
        assert_eq!(command.flag("--deadline"), Some("45"));
        assert_eq!(command.flag("--x"), None);
        assert_eq!(command.flag("--store"), None);
    }

    /// A file with seal's hook as written today and `extra` more seal hooks under the same
    /// event.
    fn with_extras(extra: usize) -> String {
        let ours = r#"{"matcher": "*", "hooks": [{"type": "command", "command": "seal hook claude-code pre-tool-use --rules /r.json", "timeout": 60}]}"#;
        let old =
            r#"{"hooks": [{"type": "command", "command": "seal hook claude-code pre-tool-use"}]}"#;
        let mut groups = vec![ours.to_owned()];
        groups.extend(std::iter::repeat(old.to_owned()).take(extra));
        format!("{{\"hooks\": {{\"PreToolUse\": [{}]}}}}", groups.join(", "))
    }

    #[test]
    fn duplicates_are_removed_up_to_the_bound() {
        let plan = install(Some(&with_extras(1)), &wanted()).expect("plan");
        assert!(
            plan.report
                .iter()
                .any(|line| line.starts_with("PreToolUse") && line.contains(" updated ")),
            "{:?}",
            plan.report
        );
        assert_eq!(plan.text.matches("seal hook").count(), 2, "{}", plan.text);
        // PreSkillShellCommand is added (one edit), then one removal per extra.
        assert!(install(Some(&with_extras(MAX_EDITS - 1)), &wanted()).is_ok());
        let refused = install(Some(&with_extras(MAX_EDITS)), &wanted()).expect_err("too many");
        assert!(refused.contains("more than 256"), "{refused}");
        let same = install(Some(&with_extras(0)), &wanted()).expect("plan");
        assert!(
            same.report
                .iter()
                .any(|line| line.starts_with("PreToolUse") && line.contains(" unchanged ")),
            "{:?}",
            same.report
        );
    }

    #[test]
    fn a_seal_hook_sharing_a_group_is_updated_alone() {
        let shared = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}, {"type": "command", "command": "seal hook claude-code pre-tool-use --rules /old.json"}]}]}}"#;
        let plan = install(Some(shared), &wanted()).expect("plan");
        assert!(plan.report[1].contains(" updated "), "{:?}", plan.report);
        let root = parse(&plan.text).expect("json");
        let group = &root
            .get("hooks")
            .expect("hooks")
            .value
            .get("PreToolUse")
            .expect("event")
            .value;
        let group = &group.elements().expect("list")[0];
        assert_eq!(
            group.get("matcher").and_then(|m| m.value.as_str()),
            Some("Bash")
        );
        let handlers = group
            .get("hooks")
            .and_then(|m| m.value.elements())
            .expect("handlers");
        assert_eq!(handlers.len(), 2);
        assert_eq!(
            handlers[0].get("command").and_then(|m| m.value.as_str()),
            Some("audit")
        );
        assert!(same(
            &handlers[1],
            &handler(&wanted(), &events(Client::ClaudeCode)[1])
        ));
        let again = install(Some(&plan.text), &wanted()).expect("plan");
        assert_eq!(again.text, plan.text);
        assert!(
            again.report[1].contains(" unchanged "),
            "{:?}",
            again.report
        );
    }

    #[test]
    fn a_prompt_hook_without_a_store_is_kept_or_not_written() {
        let with_prompt = r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "seal hook claude-code user-prompt-submit --store /s.json"}]}]}}"#;
        let plan = install(Some(with_prompt), &wanted()).expect("plan");
        assert!(
            plan.report[0].contains("kept as it is"),
            "{:?}",
            plan.report
        );
        assert!(plan.text.contains("user-prompt-submit --store /s.json"));
        let plan = install(Some("{}"), &wanted()).expect("plan");
        assert!(plan.report[0].contains("not written"), "{:?}", plan.report);
    }

    #[test]
    fn the_kept_check_sees_a_change_outside_seals_hooks() {
        let before = r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#;
        let root = parse(before).expect("json");
        let kept = without_seal(before, &root).expect("value");
        assert!(check_kept(before, &kept).is_ok());
        for changed in [
            r#"{"model": "sonnet", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#,
            r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "y"}]}]}}"#,
            r#"{"model": "opus"}"#,
        ] {
            assert!(check_kept(changed, &kept).is_err(), "{changed}");
        }
        let with_seal = r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}, {"type": "command", "command": "seal hook claude-code pre-tool-use"}]}], "PreToolUse": [{"hooks": [{"type": "command", "command": "seal hook claude-code pre-tool-use"}]}]}}"#;
        assert!(check_kept(with_seal, &kept).is_ok());
    }
}
