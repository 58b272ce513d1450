//! The self-protection guard (spec/self-protection.md) on every protected path, through every
//! tool and many programs and spellings, with negative twins (reading the rules is fine,
//! writing them is not); directories holding a protected path; its place in a policy; and a
//! property over generated spellings that catches guards that do not read `~` or `..`.

use proptest::prelude::*;
use seal_policy::assembly::{
    Fallback, PolicyBuilder, DESTRUCTIVE_LISTENER_NAME, SECRET_LISTENER_NAME,
    SELF_PROTECTION_GUARD_NAME, SELF_PROTECTION_LISTENER_NAME,
};
use seal_policy::chain::{Arguments, ToolCall};
use seal_policy::destructive::DestructiveGuard;
use seal_policy::escalation::EscalationFields;
use seal_policy::guards::secrets::SecretGuard;
use seal_policy::guards::self_protection::{
    ProtectedPath, Protection, SelfProtection, DEFAULT_PROTECTED,
};
use seal_policy::guards::Act;
use seal_policy::pipeline::Prepared;
use seal_policy::preset::Session;
use seal_test_support::runner::{assert_finds_counterexample, exploring, seeded};
use seal_test_support::tool_call::bash_call;

const ROOT: &str = "/home/dev/project";
const HOME: &str = "/home/dev";

/// The paths the binary adds, as it would for `--rules`, `--store`, `--state`, `--keys` and
/// the running binary.
fn added() -> Vec<ProtectedPath> {
    vec![
        ProtectedPath::file(
            "seal-rules",
            "/home/dev/.config/seal/rules.json",
            Protection::Write,
            "seal's rules file",
        )
        .unwrap(),
        ProtectedPath::file(
            "seal-store",
            "/etc/seal/store.json",
            Protection::Write,
            "seal's trust store",
        )
        .unwrap(),
        ProtectedPath::directory(
            "seal-state",
            "/home/dev/.local/state/seal",
            Protection::Write,
            "seal's replay state",
        )
        .unwrap(),
        ProtectedPath::file(
            "seal-binary",
            "/usr/local/bin/seal",
            Protection::Write,
            "the running seal binary",
        )
        .unwrap(),
        ProtectedPath::file(
            "seal-keys",
            "/home/dev/.config/seal/keys.json",
            Protection::ReadWrite,
            "seal's secret key file",
        )
        .unwrap(),
    ]
}

fn guard_with(home: &str) -> SelfProtection {
    added().into_iter().fold(
        SelfProtection::new()
            .with_workspace_root(ROOT)
            .with_home_dir(home),
        SelfProtection::with_protected,
    )
}

fn guard() -> SelfProtection {
    guard_with(HOME)
}

fn call(tool: &str, arguments: &serde_json::Value) -> ToolCall {
    let bytes = arguments.to_string();
    ToolCall::freeze(
        "s1",
        Some("a1"),
        "c1",
        tool,
        bytes.as_bytes(),
        Arguments::Lossless,
    )
    .expect("the call freezes")
}

fn finding(command: &str) -> String {
    guard()
        .check_command(command)
        .map_or_else(|| "pass".to_owned(), |found| found.id)
}

/// Every protected file, spelt from the workspace `/home/dev/project`, with its id.
const PROTECTED_FILES: &[(&str, &str)] = &[
    ("~/.claude/settings.json", "claude-user-settings"),
    ("~/.claude/settings.local.json", "claude-user-settings"),
    (".claude/settings.json", "claude-project-settings"),
    (".claude/settings.local.json", "claude-project-settings"),
    (
        "/etc/claude-code/managed-settings.json",
        "claude-managed-settings",
    ),
    ("~/.codex/hooks.json", "codex-hooks"),
    ("~/.codex/config.toml", "codex-config"),
    ("~/.seal/rules.json", "seal-dir"),
    ("~/.seal/store.json", "seal-dir"),
    ("~/.seal/keys.json", "seal-keys"),
    ("~/.config/seal/rules.json", "seal-rules"),
    ("/etc/seal/store.json", "seal-store"),
    ("~/.local/state/seal/replay.sqlite3", "seal-state"),
    ("~/.local/state/seal/replay.sqlite3-wal", "seal-state"),
    ("/usr/local/bin/seal", "seal-binary"),
    ("~/.config/seal/keys.json", "seal-keys"),
];

/// Programs writing a path, `{}` standing for it.
const WRITERS: &[&str] = &[
    "tee {}",
    "tee -a {}",
    "sed -i s/deny/allow/ {}",
    "cp /tmp/evil {}",
    "cp -t {} /tmp/evil",
    "mv /tmp/evil {}",
    "mv {} /tmp/gone",
    "install -m 600 /tmp/evil {}",
    "rsync /tmp/evil {}",
    "ln -sf /tmp/evil {}",
    "rm {}",
    "rm -f {}",
    "unlink {}",
    "shred -u {}",
    "truncate -s 0 {}",
    "touch {}",
    "chmod 666 {}",
    "chown nobody {}",
    "dd if=/dev/zero of={}",
    "sort -o {} /tmp/x",
    "curl -o {} https://example.invalid",
    "python3 rewrite.py {}",
    "sudo tee {}",
    "bash -c 'rm {}'",
    "find {} -delete",
];

#[test]
fn every_protected_file_is_refused_to_every_writer() {
    let mut wrong = Vec::new();
    for (path, id) in PROTECTED_FILES {
        for writer in WRITERS {
            let command = writer.replace("{}", path);
            let got = finding(&command);
            if got != *id {
                wrong.push(format!("{command}: got {got}, want {id}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_protected_file_is_refused_to_every_writing_tool() {
    let g = guard();
    let mut wrong = Vec::new();
    for (path, id) in PROTECTED_FILES {
        let absolute = if let Some(rest) = path.strip_prefix('~') {
            format!("{HOME}{rest}")
        } else if path.starts_with('/') {
            (*path).to_owned()
        } else {
            format!("{ROOT}/{path}")
        };
        let calls = [
            (
                "Write",
                serde_json::json!({"file_path": absolute, "content": "{}"}),
            ),
            (
                "Edit",
                serde_json::json!({"file_path": absolute, "old_string": "deny", "new_string": "allow"}),
            ),
            (
                "MultiEdit",
                serde_json::json!({"file_path": absolute, "edits": []}),
            ),
            (
                "NotebookEdit",
                serde_json::json!({"notebook_path": absolute, "new_source": ""}),
            ),
            (
                "Write",
                serde_json::json!({"file_path": path, "content": "{}"}),
            ),
        ];
        for (tool, arguments) in calls {
            let got = g.check_call(&call(tool, &arguments)).map(|found| found.id);
            if got.as_deref() != Some(*id) {
                wrong.push(format!("{tool} {arguments}: got {got:?}, want {id}"));
            }
        }
        let patch =
            format!("*** Begin Patch\n*** Update File: {absolute}\n@@\n-a\n+b\n*** End Patch\n");
        let got = g
            .check_call(&call("apply_patch", &serde_json::json!({"command": patch})))
            .map(|found| found.id);
        if got.as_deref() != Some(*id) {
            wrong.push(format!("apply_patch {absolute}: got {got:?}, want {id}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Writes of protected paths spelt in other ways, and directories holding them.
const REFUSED: &[(&str, &str)] = &[
    // Spellings.
    (
        "tee /home/dev/.claude/settings.json",
        "claude-user-settings",
    ),
    ("tee ../.claude/settings.json", "claude-user-settings"),
    (
        "tee src/../../.claude/settings.json",
        "claude-user-settings",
    ),
    ("tee ~/x/../.claude/./settings.json", "claude-user-settings"),
    (
        "tee //home//dev/.claude//settings.json",
        "claude-user-settings",
    ),
    ("tee ~/.CLAUDE/Settings.json", "claude-user-settings"),
    ("tee ./.claude/settings.json", "claude-project-settings"),
    (
        "tee /home/dev/project/.claude/settings.json",
        "claude-project-settings",
    ),
    ("rm ~/.claude/*", "claude-user-settings"),
    ("rm ~/.claude/settings.*", "claude-user-settings"),
    ("rm ~/.cl*/settings.json", "claude-user-settings"),
    ("rm .c*/settings.json", "claude-project-settings"),
    ("cd ~/.claude && rm settings.json", "claude-user-settings"),
    (
        "cd .claude && tee settings.local.json",
        "claude-project-settings",
    ),
    (
        "cd src && rm ../.claude/settings.json",
        "claude-project-settings",
    ),
    (
        "cd /etc/claude-code; tee managed-settings.json",
        "claude-managed-settings",
    ),
    ("cd ~ && cd .codex && rm hooks.json", "codex-hooks"),
    // The project settings are protected in every directory above the workspace too (the
    // client may have been started there).
    ("tee /home/.claude/settings.json", "claude-project-settings"),
    // Another user's client settings.
    (
        "tee /home/alice/.claude/settings.json",
        "claude-user-settings",
    ),
    ("tee ~root/.codex/config.toml", "codex-config"),
    // Directories holding a protected path, removed, moved, linked or changed whole.
    ("rm -rf ~/.claude", "claude-user-settings"),
    ("rm -rf .claude", "claude-project-settings"),
    ("rm -rf .", "claude-project-settings"),
    ("rm -rf ..", "seal-keys"),
    ("rmdir ~/.codex", "codex-config"),
    ("mv ~/.seal ~/x", "seal-dir"),
    ("mv ~/.claude /tmp/c", "claude-user-settings"),
    ("mv .claude .claude.bak", "claude-project-settings"),
    ("mv ~/.config/seal /tmp/s", "seal-keys"),
    ("chmod -R 777 ~", "seal-keys"),
    ("chmod 000 ~/.claude", "claude-user-settings"),
    ("chown -R nobody ~/.codex", "codex-config"),
    (
        "find ~/.claude -name '*.json' -delete",
        "claude-user-settings",
    ),
    ("find . -delete", "claude-project-settings"),
    ("ln -s /tmp/fake ~/.claude", "claude-user-settings"),
    ("ln -s /tmp/fake ~/.claude/", "claude-user-settings"),
    ("ln -s ~/.seal link", "seal-dir"),
    ("trash ~/.codex", "codex-config"),
    (
        "docker run -v ~/.claude/settings.json:/x alpine",
        "claude-user-settings",
    ),
    // Copies and moves into a directory write the name they create there.
    ("cp /tmp/settings.json ~/.claude/", "claude-user-settings"),
    ("cp /tmp/x/settings.json .claude", "claude-project-settings"),
    ("mv /tmp/hooks.json ~/.codex/", "codex-config"),
    ("cp /tmp/hooks.json ~/.codex/", "codex-hooks"),
    // A tree moved, linked or copied onto a directory that may not exist becomes it.
    ("mv /tmp/evil .claude", "claude-project-settings"),
    ("cp -r /tmp/evil .claude", "claude-project-settings"),
    ("ln -s /tmp/evil ~/.codex", "codex-config"),
    // `find` changes what it finds with `-exec` as with `-delete`.
    (
        "find . -type f -exec sed -i s/a/b/ {} +",
        "claude-project-settings",
    ),
    (
        "find ~/.claude -name 'settings*' -exec rm {} +",
        "claude-user-settings",
    ),
    ("find . -name '*.json' -delete", "claude-project-settings"),
    (
        "find . -name '*.o' -o -name '*.json' -delete",
        "claude-project-settings",
    ),
    ("find ~ -name '*.o' -delete", "seal-keys"),
    (
        "cp -t ~/.claude /tmp/settings.local.json",
        "claude-user-settings",
    ),
    ("cp -r /tmp/evil/.claude .", "claude-project-settings"),
    ("cp -r /tmp/evil/. .", "claude-project-settings"),
    ("rsync -a /tmp/evil/ .", "claude-project-settings"),
    (
        "ln -s /tmp/evil/settings.json .claude/",
        "claude-project-settings",
    ),
    ("install /tmp/seal /usr/local/bin/", "seal-binary"),
    // Reading the secret key file, directly or through a directory holding it.
    ("cat ~/.seal/keys.json", "seal-keys"),
    ("cat ~/.config/seal/keys.json", "seal-keys"),
    ("base64 ~/.seal/keys.json", "seal-keys"),
    ("cp ~/.seal/keys.json /tmp/k", "seal-keys"),
    ("grep -r hmac ~/.seal", "seal-keys"),
    ("tar czf /tmp/x.tgz ~", "seal-keys"),
    ("cat ~/.seal/*", "seal-keys"),
];

/// Calls that touch no protected path in a way the guard refuses.
const PASSED: &[&str] = &[
    "cp a.txt .",
    "cp a.txt src/",
    "cp -r src /tmp/x",
    "cp -r src .",
    "rsync -a src/ dist/",
    "mv a.txt b.txt",
    "rm -rf build",
    "rm -rf src/.claude-cache",
    "rm ~/.claude/todos/x.json",
    "rm -rf ~/.claude/projects",
    "find . -name '*.o' -delete",
    "find . -name '*.pyc' -exec rm {} +",
    "find . -iname '*.log' -type f -delete",
    "find src -delete",
    "mv /tmp/x .",
    "mv notes.txt ~",
    "cp -r /tmp/template/src .",
    "ln -s /tmp/x src/link",
    "touch src/.claude.json",
    "cat ~/.seal/rules.json",
    "cat ~/.config/seal/rules.json",
    "cat ~/.claude/settings.json",
    "cat .claude/settings.json",
    "grep -r deny ~/.claude",
    "cp ~/.seal/rules.json /tmp/rules.json",
    "cp ~/.claude/settings.json /tmp/backup.json",
    "ls -la ~/.seal",
    "stat ~/.seal/keys.json",
    "echo ~/.seal/keys.json",
    "tee notes.txt",
    "chmod +x script.sh",
    "chmod -R u+w src",
    "mkdir -p .claude/commands",
    "tee .claude/commands/review.md",
    "git status",
    "ls /usr/local/bin/seal",
    "/usr/local/bin/seal doctor",
];

#[test]
fn refuses_spellings_and_holding_directories_naming_the_path() {
    let mut wrong = Vec::new();
    for (command, want) in REFUSED {
        let got = finding(command);
        if got != *want {
            wrong.push(format!("{command}: got {got}, want {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn lets_every_other_command_through() {
    let wrong: Vec<String> = PASSED
        .iter()
        .filter_map(|command| {
            guard()
                .check_command(command)
                .map(|found| format!("{command}: {found}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn reading_is_refused_for_the_secret_key_file_only() {
    let g = guard();
    let read = |path: &str| {
        g.check_call(&call("Read", &serde_json::json!({"file_path": path})))
            .map(|found| (found.id, found.act))
    };
    assert_eq!(
        read("/home/dev/.seal/keys.json"),
        Some(("seal-keys".into(), Act::Read))
    );
    assert_eq!(
        read("/home/dev/.config/seal/keys.json"),
        Some(("seal-keys".into(), Act::Read))
    );
    assert_eq!(read("/home/dev/.seal/rules.json"), None);
    assert_eq!(read("/home/dev/.config/seal/rules.json"), None);
    assert_eq!(read("/home/dev/.claude/settings.json"), None);
    assert_eq!(read("/home/dev/project/.claude/settings.json"), None);
    assert_eq!(read("/etc/seal/store.json"), None);
    let grep = |path: &str| {
        g.check_call(&call(
            "Grep",
            &serde_json::json!({"pattern": "x", "path": path}),
        ))
        .map(|found| found.id)
    };
    assert_eq!(grep("/home/dev/.seal").as_deref(), Some("seal-keys"));
    assert_eq!(grep("/home/dev/.claude"), None);
    assert_eq!(grep("/home/dev/project"), None);
}

#[test]
fn every_default_path_is_protected() {
    for row in DEFAULT_PROTECTED {
        let path = if row.path.starts_with('~') || row.path.starts_with('/') {
            row.path.to_owned()
        } else {
            format!("./{}", row.path)
        };
        let found = SelfProtection::new()
            .with_workspace_root(ROOT)
            .with_home_dir(HOME)
            .check_command(&format!("rm '{path}'"))
            .unwrap_or_else(|| panic!("{} is not protected", row.path));
        assert_eq!(found.act, Act::Write, "{}", row.path);
    }
}

#[test]
fn findings_name_the_protected_path_and_what_reaches_it() {
    let found = guard()
        .check_command("sed -i s/a/b/ ~/.config/seal/rules.json")
        .unwrap();
    assert_eq!(
        found.to_string(),
        "self-protection: writing `/home/dev/.config/seal/rules.json` (seal's rules file) with `sed -i s/a/b/ ~/.config/seal/rules.json`"
    );
    let held = guard().check_command("rm -rf ~/.claude").unwrap();
    assert_eq!(held.act, Act::ChangeBelow);
    assert_eq!(
        held.to_string(),
        "self-protection: removing, moving, linking or changing the mode of `/home/dev/.claude`, which holds `~/.claude/settings.local.json` (Claude Code's user settings), with `rm -rf ~/.claude`"
    );
    let read = guard().check_command("cat ~/.seal/keys.json").unwrap();
    assert_eq!(
        read.to_string(),
        "self-protection: reading `/home/dev/.seal/keys.json` (seal's secret key file) with `cat ~/.seal/keys.json`"
    );
}

#[test]
fn paths_that_cannot_be_placed_are_refused_when_written() {
    let deep = format!("tee {}../x", "a/".repeat(70));
    let found = guard().check_command(&deep).unwrap();
    assert!(matches!(found.act, Act::Unplaced(_)), "{found}");
    // Read, they are refused too, since a key file is protected from reads.
    assert!(guard()
        .check_command(&format!("cat {}x", "a/".repeat(70)))
        .is_some());
    let writes_only = SelfProtection::empty()
        .with_workspace_root(ROOT)
        .with_protected(ProtectedPath::file("p", "/p", Protection::Write, "p").unwrap());
    assert!(writes_only
        .check_command(&format!("cat {}x", "a/".repeat(70)))
        .is_none());
}

#[test]
fn protected_paths_refuse_what_cannot_be_read() {
    assert!(ProtectedPath::file("", "/x", Protection::Write, "x").is_err());
    assert!(ProtectedPath::file("x", "", Protection::Write, "x").is_err());
    assert!(ProtectedPath::file("x", "~bob/x", Protection::Write, "x").is_err());
    assert!(ProtectedPath::file("x", "/a/../b", Protection::Write, "x").is_err());
    assert!(ProtectedPath::file("x\n", "/a", Protection::Write, "x").is_err());
}

#[test]
fn commands_seal_cannot_segment_are_read_as_far_as_they_can_be() {
    // Redirections, substitutions and `$HOME`: a human may approve such a command, so what
    // can be read of it is checked.
    for command in [
        "echo '{}' > ~/.claude/settings.json",
        "echo x >> $HOME/.claude/settings.json",
        "cp $(ls) ~/.claude/settings.json",
        "echo $(rm -rf ~/.seal)",
        "cat a.txt > .claude/settings.local.json",
    ] {
        assert!(guard().check_command(command).is_some(), "`{command}`");
    }
    assert!(guard().check_command("echo x > notes.txt").is_none());
    assert!(guard()
        .check_command("cat ~/.claude/settings.json > copy.json")
        .is_none());
}

fn decide(builder: PolicyBuilder, command: &str) -> (&'static str, Vec<String>) {
    let policy = builder.build().expect("the policy builds");
    let session = Session::fresh(&policy.settings);
    let call = bash_call(command);
    let plan = policy
        .pipeline
        .decide(&session, &call, &EscalationFields::default());
    let (kind, trace) = match &plan {
        Prepared::Run(cleared) => ("run", cleared.trace()),
        Prepared::Deny(refused) => ("deny", refused.trace()),
        Prepared::NeedsApproval(awaiting) => ("approve", awaiting.trace()),
    };
    let names = trace
        .steps()
        .iter()
        .map(|s| s.stage().name().to_owned())
        .collect();
    (kind, names)
}

#[test]
fn the_guard_denies_whatever_a_rule_or_the_fallback_allows() {
    let allow_bash = || {
        PolicyBuilder::new()
            .rules_json(r#"{"permissions": {"allow": ["Bash"]}}"#)
            .workspace_root(ROOT)
            .home_dir(HOME)
    };
    let (kind, names) = decide(
        allow_bash().self_protection(SelfProtection::new()),
        "tee ~/.claude/settings.json",
    );
    assert_eq!(kind, "deny");
    assert_eq!(names, [SELF_PROTECTION_LISTENER_NAME]);
    let ask = PolicyBuilder::new()
        .rules_json(r#"{"permissions": {"ask": ["Bash"]}}"#)
        .workspace_root(ROOT)
        .self_protection(SelfProtection::new());
    assert_eq!(decide(ask, "rm -rf .claude").0, "deny");
    let fallback = PolicyBuilder::new()
        .fallback(Fallback::Allow)
        .workspace_root(ROOT)
        .home_dir(HOME)
        .self_protection(SelfProtection::new());
    assert_eq!(
        decide(fallback, "cp /tmp/evil ~/.codex/hooks.json").0,
        "deny"
    );
    let (kind, names) = decide(
        allow_bash().self_protection(SelfProtection::new()),
        "cat README.md",
    );
    assert_eq!(kind, "run");
    assert!(
        names.iter().any(|name| name == SELF_PROTECTION_GUARD_NAME),
        "{names:?}"
    );
    // With every guard, the destructive-command guard stands first, then self-protection,
    // then the secret-read guard.
    let all = allow_bash()
        .destructive_guard(DestructiveGuard::new())
        .self_protection(SelfProtection::new())
        .secret_guard(SecretGuard::new());
    let (kind, names) = decide(all, "cat README.md");
    assert_eq!(kind, "run");
    assert_eq!(
        names.get(..3).unwrap(),
        [
            DESTRUCTIVE_LISTENER_NAME,
            SELF_PROTECTION_LISTENER_NAME,
            SECRET_LISTENER_NAME
        ]
    );
}

#[test]
fn the_policy_digest_covers_the_guards() {
    let digest = |builder: PolicyBuilder| builder.build().expect("builds").digest;
    let base = || PolicyBuilder::new().workspace_root(ROOT);
    let plain = digest(base());
    let protected = digest(base().self_protection(SelfProtection::new()));
    let secrets = digest(base().secret_guard(SecretGuard::new()));
    let both = digest(
        base()
            .self_protection(SelfProtection::new())
            .secret_guard(SecretGuard::new()),
    );
    let all = [plain, protected, secrets, both];
    for (at, one) in all.iter().enumerate() {
        for other in all.iter().skip(at + 1) {
            assert_ne!(one, other);
        }
    }
}

/// Spellings of the home directory, read from the workspace `/home/dev/project`.
const HOME_SPELLINGS: &[&str] = &[
    "~",
    "/home/dev",
    "/home/dev/project/..",
    "..",
    "src/../..",
    "~/x/..",
];

/// Protected files relative to the home directory (all given to the guard as absolute paths).
const HOME_FILES: &[&str] = &[
    ".config/seal/rules.json",
    ".config/seal/keys.json",
    ".local/state/seal/replay.sqlite3",
];

fn spelt_write() -> impl Strategy<Value = String> {
    (
        prop::sample::select(HOME_SPELLINGS),
        prop::sample::select(HOME_FILES),
        prop::sample::select(WRITERS),
        0usize..3,
        any::<bool>(),
    )
        .prop_map(|(home, file, writer, detours, cd)| {
            let mut path = file.to_owned();
            for _ in 0..detours {
                path = match path.split_once('/') {
                    Some((head, tail)) => format!("{head}/./x/../{tail}"),
                    None => format!("./{path}"),
                };
            }
            if cd {
                format!("cd {home} && {}", writer.replace("{}", &path))
            } else {
                writer.replace("{}", &format!("{home}/{path}"))
            }
        })
}

fn every_spelling_is_refused(
    check: impl Fn(&str) -> bool,
) -> Result<(), proptest::test_runner::TestError<String>> {
    seeded(256).run(&spelt_write(), |command| {
        prop_assert!(check(&command), "not refused: {command}");
        Ok(())
    })
}

#[test]
fn every_spelling_of_a_protected_write_is_refused() {
    let g = guard();
    every_spelling_is_refused(|command| g.check_command(command).is_some()).unwrap();
    exploring(256)
        .run(&spelt_write(), |command| {
            prop_assert!(
                g.check_command(&command).is_some(),
                "not refused: {command}"
            );
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_property_catches_a_guard_that_does_not_read_the_home_directory() {
    // The protected paths are absolute; a guard told the wrong home reads `~` elsewhere.
    let wrong_home = guard_with("/nonexistent");
    assert_finds_counterexample(
        every_spelling_is_refused(|command| wrong_home.check_command(command).is_some()),
        "a guard that ignores `~`",
    );
}

#[test]
fn the_property_catches_a_guard_that_does_not_resolve_dot_dot() {
    let literal = |command: &str| {
        command.split_whitespace().any(|word| {
            let word = word.trim_matches('\'').trim_start_matches("of=");
            HOME_FILES
                .iter()
                .any(|file| word == format!("~/{file}") || word == format!("/home/dev/{file}"))
        })
    };
    assert_finds_counterexample(
        every_spelling_is_refused(literal),
        "a guard that ignores `..`",
    );
}

const SPEC: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../spec/self-protection.md"
));

/// The spec's table of default protected paths, rendered from [`DEFAULT_PROTECTED`].
fn protected_table() -> String {
    let mut out =
        String::from("| Id | Path | Kind | Protected | What |\n| --- | --- | --- | --- | --- |\n");
    for row in DEFAULT_PROTECTED {
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} |\n",
            row.id,
            row.path,
            row.kind.as_str(),
            row.protection.as_str(),
            row.what
        ));
    }
    out
}

#[test]
fn the_spec_lists_every_default_path_as_the_table_holds_it() {
    let begin = "<!-- protected:begin -->\n";
    let end = "<!-- protected:end -->";
    let start = SPEC.find(begin).expect("begin marker") + begin.len();
    let stop = SPEC.find(end).expect("end marker");
    let table = protected_table();
    if seal_test_support::regenerating() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/self-protection.md");
        let text = format!("{}{table}{}", &SPEC[..start], &SPEC[stop..]);
        std::fs::write(path, text).unwrap();
        return;
    }
    assert_eq!(
        &SPEC[start..stop],
        table,
        "spec/self-protection.md section 1 differs from DEFAULT_PROTECTED (SEAL_REGENERATE=1 rewrites it)"
    );
}

/// The spec's examples of section 3, each checked.
#[test]
fn the_spec_examples_hold() {
    let g = guard();
    for (command, want) in [
        ("rm -rf ~/.claude", Some("claude-user-settings")),
        ("mv ~/.seal ~/x", Some("seal-dir")),
        ("rm -rf .", Some("claude-project-settings")),
        ("find . -name '*.o' -delete", None),
        ("mv /tmp/evil .claude", Some("claude-project-settings")),
        ("ln -s /tmp/x ~/.codex", Some("codex-config")),
        ("tar czf x.tgz ~", Some("seal-keys")),
        ("cp -r src .", None),
        ("cp a.txt .", None),
        ("sed -i s/deny/allow/ ~/.seal/rules.json", Some("seal-dir")),
    ] {
        let got = g.check_command(command).map(|found| found.id);
        assert_eq!(got.as_deref(), want, "{command}");
    }
}

/// seal's own installer writes the clients' hook settings without naming them: an agent that
/// runs it (to take seal's hooks out, or to point them at other rules) is refused; seal's other
/// commands are not.
#[test]
fn seals_installer_is_refused_and_its_other_commands_are_not() {
    let refused = [
        ("seal uninstall claude-code", "claude-user-settings"),
        ("seal uninstall codex", "codex-hooks"),
        (
            "seal install claude-code --rules /tmp/allow-all.json",
            "claude-user-settings",
        ),
        (
            "/usr/local/bin/seal install codex --rules /tmp/r.json --timeout 90",
            "codex-hooks",
        ),
        (
            "/home/dev/.cargo/bin/seal uninstall --dry-run claude-code",
            "claude-user-settings",
        ),
        ("seal install", "claude-user-settings"),
        (
            "seal uninstall claude-code --project .",
            "claude-project-settings",
        ),
        (
            "seal uninstall claude-code --project=/home/dev/project",
            "claude-project-settings",
        ),
        (
            "cd .. && seal uninstall claude-code --project project",
            "claude-project-settings",
        ),
        ("seal uninstall", "claude-user-settings"),
        ("sudo seal uninstall codex", "codex-hooks"),
        (
            "env SEAL_X=1 seal uninstall claude-code",
            "claude-user-settings",
        ),
    ];
    let mut wrong = Vec::new();
    for (command, want) in refused {
        let got = finding(command);
        if got != want {
            wrong.push(format!("{command}: got {got}, want {want}"));
        }
    }
    for command in [
        "seal doctor",
        "seal policy check --rules r.json",
        "seal hook claude-code pre-tool-use",
        "seal scan",
        "echo seal uninstall claude-code",
        "grep -r 'seal uninstall' docs",
        "seal uninstall claude-code --project /tmp/other",
    ] {
        let got = finding(command);
        if got != "pass" {
            wrong.push(format!("{command}: got {got}, want pass"));
        }
    }
    // The client named is the settings written: with only Codex's hooks protected, an
    // uninstall for Claude Code passes and one for Codex does not.
    let codex_only = SelfProtection::empty()
        .with_workspace_root(ROOT)
        .with_home_dir(HOME)
        .with_protected(
            ProtectedPath::file(
                "codex-hooks",
                "~/.codex/hooks.json",
                Protection::Write,
                "Codex's hooks",
            )
            .unwrap(),
        );
    assert!(codex_only
        .check_command("seal uninstall claude-code")
        .is_none());
    assert_eq!(
        codex_only
            .check_command("seal uninstall codex")
            .map(|found| found.id),
        Some("codex-hooks".to_owned())
    );
    assert!(codex_only.check_command("seal uninstall").is_some());
    let claude_only = SelfProtection::empty()
        .with_workspace_root(ROOT)
        .with_home_dir(HOME)
        .with_protected(
            ProtectedPath::file(
                "claude-user-settings",
                "~/.claude/settings.json",
                Protection::Write,
                "Claude Code's user settings",
            )
            .unwrap(),
        );
    assert!(claude_only.check_command("seal uninstall codex").is_none());
    assert!(claude_only
        .check_command("seal uninstall claude-code")
        .is_some());
    assert!(claude_only.check_command("seal uninstall").is_some());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
