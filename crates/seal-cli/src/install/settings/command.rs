//! seal's hook commands: the command, handler and group an install writes for an event, and a
//! command read back as a seal hook command.

use super::Wanted;
use crate::install::json_text::Out;
use crate::install::HookEntry;

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
    if event.hook == crate::install::POST_TOOL_USE.hook {
        // It reads no file: it only tells the approval server.
        return words.join(" ");
    }
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
    if let Some(wait) = wanted.wait_of(event) {
        if event.hook == "pre-tool-use" {
            words.push("--wait-approval".to_owned());
        }
        words.push("--approval-wait".to_owned());
        words.push(wait.to_string());
    }
    words.join(" ")
}

/// The handler object seal writes for `event`.
pub fn handler(wanted: &Wanted, event: &HookEntry) -> Out {
    Out::Object(vec![
        ("type".into(), Out::String("command".into())),
        ("command".into(), Out::String(command(wanted, event))),
        ("timeout".into(), Out::Number(wanted.timeout_of(event))),
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
    // `rsplit` yields at least one piece: the fallback (the whole program) is never taken.
    let base = program
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(program.as_str());
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
    // A command that stops after the client word has no hook word: empty, as documented.
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
