//! `seal install` and `seal uninstall` on real and unusual settings files (spec/install.md):
//! every byte that is not seal's stays, a second install changes nothing, an uninstall gives the
//! original bytes back, and a file that is not JSON is refused and left untouched.

use std::path::{Path, PathBuf};

use crate::support::{self, fixture, seal, Run, TempDir};

const RULES: &str = "/home/op/.seal/rules.json";
const STORE: &str = "/home/op/.seal/store.json";
const KEYS: &str = "/home/op/.seal/keys.json";

/// The 48 real `.claude/settings*.json` files the rule conformance tests keep, and this test's
/// own files with other tools' hooks and unusual layouts.
fn claude_files() -> Vec<PathBuf> {
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../seal-policy/tests/conformance/real-settings");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&real)
        .expect("real settings")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 48, "the real settings files");
    for name in [
        "claude-other-hooks.json",
        "claude-tabs-crlf.json",
        "claude-minified.json",
        "claude-bom-spaced.json",
    ] {
        files.push(PathBuf::from(fixture(&format!("install/{name}"))));
    }
    files
}

fn install(client: &str, settings: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "install",
        client,
        "--settings",
        settings,
        "--rules",
        RULES,
        "--store",
        STORE,
        "--keys",
        KEYS,
    ];
    args.extend_from_slice(extra);
    seal(&args, b"", &[])
}

fn uninstall(client: &str, settings: &str) -> Run {
    seal(&["uninstall", client, "--settings", settings], b"", &[])
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).expect("read")
}

/// Whether `after` is `before` with text inserted and nothing taken out or changed.
fn only_insertions(before: &str, after: &str) -> bool {
    similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_chars(before, after)
        .ops()
        .iter()
        .all(|op| matches!(op.tag(), similar::DiffTag::Equal | similar::DiffTag::Insert))
}

#[test]
fn the_insertion_check_sees_a_change() {
    assert!(only_insertions("{\"a\": 1}", "{\"a\": 1, \"b\": 2}"));
    assert!(!only_insertions("{\"a\": 1}", "{\"a\": 2}"));
    assert!(!only_insertions("{\"a\": 1}\n", "{\"a\": 1}"));
}

fn round_trip(client: &str, original_path: &Path, dir: &TempDir) -> (String, String) {
    let original = std::fs::read(original_path).expect("original");
    let settings = dir.file("settings.json");
    std::fs::write(&settings, &original).expect("copy");
    let name = original_path.display();

    let run = install(client, &settings, &[]);
    assert_eq!(run.code, 0, "{name}: {}", run.snapshot());
    let installed = String::from_utf8(read(&settings)).expect("utf-8");
    let before = String::from_utf8(original.clone()).expect("utf-8");
    assert!(
        only_insertions(&before, &installed),
        "{name}: the install changed bytes that are not seal's:\n{installed}"
    );
    assert!(installed.contains("seal hook"), "{name}");
    assert_eq!(
        read(&format!("{settings}.seal-backup")),
        original,
        "{name}: backup"
    );
    serde_json::from_str::<serde_json::Value>(installed.trim_start_matches('\u{feff}'))
        .expect("the installed file is JSON");

    let again = install(client, &settings, &[]);
    assert_eq!(again.code, 0, "{name}: {}", again.snapshot());
    assert!(
        again.stdout.contains(": no change"),
        "{name}: {}",
        again.stdout
    );
    assert_eq!(
        read(&settings),
        installed.as_bytes(),
        "{name}: a second install"
    );

    let removed = uninstall(client, &settings);
    assert_eq!(removed.code, 0, "{name}: {}", removed.snapshot());
    assert_eq!(
        read(&settings),
        original,
        "{name}: the uninstall did not give the original bytes back"
    );
    (installed, removed.stdout)
}

#[test]
fn claude_code_settings_keep_every_byte_that_is_not_seals() {
    let dir = TempDir::new("install-claude");
    for path in claude_files() {
        let (installed, _) = round_trip("claude-code", &path, &dir);
        let value: serde_json::Value =
            serde_json::from_str(installed.trim_start_matches('\u{feff}')).expect("json");
        for (event, hook) in [
            ("UserPromptSubmit", "user-prompt-submit"),
            ("PreToolUse", "pre-tool-use"),
            ("PreSkillShellCommand", "pre-skill-shell-command"),
        ] {
            let groups = value["hooks"][event].as_array().expect("event");
            let ours = groups.last().expect("seal's group");
            let command = ours["hooks"][0]["command"].as_str().expect("command");
            assert!(
                command.starts_with(&format!("seal hook claude-code {hook} ")),
                "{}: {command}",
                path.display()
            );
            assert_eq!(ours["hooks"][0]["timeout"], 60);
            assert_eq!(ours["hooks"].as_array().map(Vec::len), Some(1));
            if event == "PreToolUse" {
                assert_eq!(ours["matcher"], "*");
            }
        }
    }
}

#[test]
fn codex_hooks_keep_every_byte_that_is_not_seals() {
    let dir = TempDir::new("install-codex");
    for name in ["codex-other-hooks.json", "codex-minified.json"] {
        let path = PathBuf::from(fixture(&format!("install/{name}")));
        let (installed, _) = round_trip("codex", &path, &dir);
        let value: serde_json::Value = serde_json::from_str(&installed).expect("json");
        let ours = value["hooks"]["PreToolUse"]
            .as_array()
            .and_then(|groups| groups.last())
            .expect("seal's group");
        // Codex reads no matcher as every tool; a group with none hashes without one.
        assert!(ours.get("matcher").is_none());
        assert_eq!(
            ours["hooks"][0]["command"],
            format!("seal hook codex pre-tool-use --rules {RULES} --keys {KEYS} --store {STORE}")
        );
        assert_eq!(
            value["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
            format!("seal hook codex user-prompt-submit --store {STORE} --keys {KEYS}")
        );
    }
}

#[test]
fn a_missing_file_is_created_and_the_exact_text_is_known() {
    let dir = TempDir::new("install-new");
    let settings = dir.file("sub/settings.json");
    let run = seal(
        &[
            "install",
            "claude-code",
            "--settings",
            &settings,
            "--rules",
            RULES,
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    insta::assert_snapshot!(
        "install_new_claude_code",
        String::from_utf8(read(&settings)).expect("utf-8")
    );
    insta::assert_snapshot!(
        "install_new_claude_code_stdout",
        run.stdout.replace(&settings, "[settings]")
    );
    assert!(!Path::new(&format!("{settings}.seal-backup")).exists());
    let removed = uninstall("claude-code", &settings);
    assert_eq!(removed.code, 0);
    assert_eq!(read(&settings), b"{}\n");
}

#[test]
fn seals_old_hooks_are_updated_in_place_and_duplicates_removed() {
    let dir = TempDir::new("install-update");
    let settings = dir.file("settings.json");
    let original =
        std::fs::read_to_string(fixture("install/claude-seal-old.json")).expect("fixture");
    std::fs::write(&settings, &original).expect("copy");
    let run = install("claude-code", &settings, &[]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let text = String::from_utf8(read(&settings)).expect("utf-8");
    let value: serde_json::Value = serde_json::from_str(&text).expect("json");
    let groups = value["hooks"]["PreToolUse"].as_array().expect("groups");
    // The first seal hook's group now is seal's group as written today; the second seal hook,
    // which shared a group with another tool's hook, is gone and that hook stays.
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["matcher"], "*");
    assert_eq!(
        groups[0]["hooks"][0]["command"],
        format!("seal hook claude-code pre-tool-use --rules {RULES} --keys {KEYS} --store {STORE}")
    );
    assert_eq!(groups[1]["matcher"], "Read");
    assert_eq!(
        groups[1]["hooks"],
        serde_json::json!([{"type": "command", "command": "audit-read"}])
    );
    assert_eq!(
        value["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    assert!(
        run.stdout.contains("PreToolUse             updated"),
        "{}",
        run.stdout
    );

    let removed = uninstall("claude-code", &settings);
    assert_eq!(removed.code, 0);
    let left: serde_json::Value =
        serde_json::from_str(&String::from_utf8(read(&settings)).expect("utf-8")).expect("json");
    assert_eq!(
        left,
        serde_json::json!({"hooks": {
            "PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "audit-read"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
        }})
    );
}

#[test]
fn a_file_that_is_not_json_is_refused_and_left_as_it_is() {
    let dir = TempDir::new("install-malformed");
    let cases: [(&str, &[u8], &str); 9] = [
        ("trailing comma", b"{\n  \"a\": 1,\n}\n", "line 3 column 1"),
        (
            "comment",
            b"{\n  // mine\n  \"a\": 1\n}\n",
            "line 2 column 3",
        ),
        ("truncated", b"{\n  \"hooks\": {\n", "line 3 column 1"),
        (
            "duplicate key",
            b"{\"hooks\": {}, \"hooks\": {}}",
            "line 1 column 15",
        ),
        ("not an object", b"[1, 2]\n", "line 1 column 1"),
        (
            "hooks not an object",
            b"{\"hooks\": []}",
            "line 1 column 11",
        ),
        (
            "event not a list",
            b"{\"hooks\": {\"PreToolUse\": {}}}",
            "line 1 column 26",
        ),
        ("not UTF-8", b"{\"a\": \"\xff\"}", "line 1 column 8"),
        ("empty", b"", "line 1 column 1"),
    ];
    for (what, bytes, place) in cases {
        let settings = dir.file("settings.json");
        std::fs::write(&settings, bytes).expect("write");
        for run in [
            install("claude-code", &settings, &[]),
            uninstall("claude-code", &settings),
            install("codex", &settings, &["--dry-run"]),
        ] {
            assert_eq!(run.code, 3, "{what}: {}", run.snapshot());
            assert!(run.stderr.contains(place), "{what}: {}", run.stderr);
            assert!(
                run.stderr.contains("left as it is"),
                "{what}: {}",
                run.stderr
            );
            assert_eq!(read(&settings), bytes, "{what}");
            assert!(
                !Path::new(&format!("{settings}.seal-backup")).exists(),
                "{what}"
            );
        }
    }
}

#[test]
fn a_dry_run_prints_the_diff_and_writes_nothing() {
    let dir = TempDir::new("install-dry");
    let settings = dir.file("settings.json");
    let original = read(&fixture("install/codex-minified.json"));
    std::fs::write(&settings, &original).expect("copy");
    let run = install("codex", &settings, &["--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert_eq!(read(&settings), original);
    assert!(
        run.stdout
            .contains(&format!("--- {settings}\n+++ {settings}\n")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("+{\"hooks\":{\"Stop\""),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("not written (--dry-run)"));
    assert!(
        !run.stdout.contains("[hooks.state."),
        "no review note for a dry run"
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_is_written_through_and_permissions_stay() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("install-link");
    let real = dir.file("dotfiles-settings.json");
    std::fs::write(&real, b"{\"model\": \"opus\"}\n").expect("write");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).expect("mode");
    let link = dir.file("settings.json");
    std::os::unix::fs::symlink(&real, &link).expect("link");
    let run = install("claude-code", &link, &[]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert!(std::fs::symlink_metadata(&link)
        .expect("meta")
        .file_type()
        .is_symlink());
    assert!(String::from_utf8(read(&real))
        .expect("utf-8")
        .contains("seal hook"));
    let mode = std::fs::metadata(&real).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

#[test]
fn commands_name_seal_on_the_path_and_quote_what_the_shell_would_split() {
    let dir = TempDir::new("install-quote");
    let settings = dir.file("settings.json");
    let run = seal(
        &[
            "install",
            "claude-code",
            "--settings",
            &settings,
            "--rules",
            "/home/o p/it's rules.json",
            "--state",
            "redis://10.0.0.5:6379/2",
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let value: serde_json::Value =
        serde_json::from_str(&String::from_utf8(read(&settings)).expect("utf-8")).expect("json");
    let command = value["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .expect("command");
    assert_eq!(
        command,
        r#"seal hook claude-code pre-tool-use --rules '/home/o p/it'\''s rules.json' --state redis://10.0.0.5:6379/2"#
    );
    assert_eq!(
        shlex::split(command).expect("words"),
        [
            "seal",
            "hook",
            "claude-code",
            "pre-tool-use",
            "--rules",
            "/home/o p/it's rules.json",
            "--state",
            "redis://10.0.0.5:6379/2"
        ]
    );
}

#[test]
fn what_install_refuses_it_says() {
    let dir = TempDir::new("install-refuse");
    let settings = dir.file("settings.json");
    let cases: [(&[&str], &str); 3] = [
        (
            &["install", "claude-code", "--settings", &settings],
            "--rules is missing",
        ),
        (
            &[
                "install",
                "codex",
                "--settings",
                &settings,
                "--rules",
                RULES,
                "--timeout",
                "30",
            ],
            "--timeout 30",
        ),
        (
            &[
                "install",
                "codex",
                "--settings",
                &settings,
                "--rules",
                RULES,
                "--state",
                "redis://:hunter2@10.0.0.5:6379/2",
            ],
            "carries a password",
        ),
    ];
    for (args, problem) in cases {
        let run = seal(args, b"", &[]);
        assert_eq!(run.code, 2, "{}", run.snapshot());
        assert!(run.stderr.contains(problem), "{}", run.stderr);
        assert!(!run.stderr.contains("hunter2"));
        assert!(!Path::new(&settings).exists());
    }
}

/// A home and a project directory for `seal doctor`, with `seal` on the PATH being this build
/// (a link in `bin/`).
struct Machine {
    dir: TempDir,
    home: String,
    project: String,
    path: String,
}

impl Machine {
    fn new(label: &str) -> Machine {
        let dir = TempDir::new(label);
        let home = dir.file("home");
        let project = dir.file("project");
        let bin = dir.file("bin");
        for made in [&home, &project, &bin] {
            std::fs::create_dir_all(made).expect("dir");
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_seal"), format!("{bin}/seal"))
            .expect("link");
        let path = format!("{bin}:/usr/bin:/bin");
        Machine {
            dir,
            home,
            project,
            path,
        }
    }

    fn seal(&self, args: &[&str], path: &str) -> Run {
        support::seal_in(
            Some(Path::new(&self.project)),
            args,
            b"",
            &[("HOME", &self.home), ("PATH", path)],
        )
    }

    fn doctor(&self) -> Vec<String> {
        let run = self.seal(&["doctor"], &self.path);
        run.stdout
            .lines()
            .filter(|line| {
                (line.contains("Claude Code") || line.contains("Codex"))
                    && !line.contains("self-protection")
            })
            .map(str::to_owned)
            .collect()
    }
}

fn has(lines: &[String], level: &str, parts: &[&str]) -> bool {
    lines
        .iter()
        .any(|line| line.starts_with(level) && parts.iter().all(|part| line.contains(part)))
}

/// The hash Codex 0.171.0 itself gave this definition (tests/fixtures/codex-0.171).
const RECORDED_PRE_TOOL_USE: &str =
    "sha256:8b63f572d302c273d771bcc523efc39685efc2cac5d4f00355f060126ce2fc4f";

#[cfg(unix)]
#[test]
fn doctor_reports_what_each_client_runs_and_whether_codex_will() {
    let machine = Machine::new("doctor-wiring");
    // Nothing installed, no client directories: nothing to say.
    assert!(machine.doctor().is_empty(), "{:?}", machine.doctor());

    for client in ["claude-code", "codex"] {
        let run = machine.seal(&["install", client, "--rules", RULES], &machine.path);
        assert_eq!(run.code, 0, "{}", run.snapshot());
    }
    let lines = machine.doctor();
    assert!(
        has(
            &lines,
            "ok",
            &[
                "Claude Code PreToolUse in ~/.claude/settings.json",
                "`seal hook claude-code pre-tool-use --rules /home/op/.seal/rules.json`",
                "(timeout 60 s)"
            ]
        ),
        "{lines:#?}"
    );
    assert!(
        has(&lines, "ok", &["Claude Code PreSkillShellCommand"]),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "warn",
            &["Claude Code UserPromptSubmit: not wired, frames in prompts are not verified"]
        ),
        "{lines:#?}"
    );
    assert!(
        has(&lines, "warn", &["Codex UserPromptSubmit: not wired"]),
        "{lines:#?}"
    );
    // The command is exactly the one Codex 0.171.0 hashed: never reviewed yet.
    assert!(
        has(
            &lines,
            "error",
            &[
                "Codex PreToolUse in ~/.codex/hooks.json: never reviewed in Codex",
                RECORDED_PRE_TOOL_USE
            ]
        ),
        "{lines:#?}"
    );

    // Reviewed: Codex's record of the review, with the hash Codex gave.
    let key = format!("{}/.codex/hooks.json:pre_tool_use:0:0", machine.home);
    let config = format!("{}/.codex/config.toml", machine.home);
    std::fs::write(
        &config,
        format!("[hooks.state.\"{key}\"]\ntrusted_hash = \"{RECORDED_PRE_TOOL_USE}\"\n"),
    )
    .expect("config");
    let lines = machine.doctor();
    assert!(
        has(
            &lines,
            "ok",
            &["Codex PreToolUse", "reviewed and trusted in Codex"]
        ),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "ok",
            &[
                "Codex PreToolUse in ~/.codex/hooks.json: `seal hook codex pre-tool-use",
                "(timeout 60 s)"
            ]
        ),
        "{lines:#?}"
    );

    // Disabled after review.
    std::fs::write(&config, format!("[hooks.state.\"{key}\"]\ntrusted_hash = \"{RECORDED_PRE_TOOL_USE}\"\nenabled = false\n")).expect("config");
    assert!(has(
        &machine.doctor(),
        "error",
        &["Codex PreToolUse", "disabled in Codex"]
    ));
    std::fs::write(
        &config,
        format!("[hooks.state.\"{key}\"]\ntrusted_hash = \"{RECORDED_PRE_TOOL_USE}\"\n"),
    )
    .expect("config");

    // A changed definition (another timeout) is not the one reviewed.
    let run = machine.seal(
        &["install", "codex", "--rules", RULES, "--timeout", "90"],
        &machine.path,
    );
    assert!(run.stdout.contains("updated"), "{}", run.stdout);
    let lines = machine.doctor();
    assert!(
        has(
            &lines,
            "error",
            &[
                "Codex PreToolUse",
                "changed since it was reviewed",
                RECORDED_PRE_TOOL_USE
            ]
        ),
        "{lines:#?}"
    );

    // A seal the PATH does not find, and another seal than this one.
    let lines = {
        let run = machine.seal(&["doctor"], "/usr/bin:/bin");
        run.stdout.lines().map(str::to_owned).collect::<Vec<_>>()
    };
    assert!(
        has(
            &lines,
            "error",
            &["Claude Code PreToolUse", "`seal` is not found on the PATH"]
        ),
        "{lines:#?}"
    );
    let other = machine.dir.file("other");
    std::fs::create_dir_all(&other).expect("dir");
    std::fs::copy(env!("CARGO_BIN_EXE_seal"), format!("{other}/seal")).expect("copy");
    let lines = {
        let run = machine.seal(&["doctor"], &format!("{other}:/usr/bin:/bin"));
        run.stdout.lines().map(str::to_owned).collect::<Vec<_>>()
    };
    assert!(
        has(&lines, "warn", &["Claude Code PreToolUse", "not this seal"]),
        "{lines:#?}"
    );

    // Hand edits: a timeout under the deadline, a hook for the other client, a matcher that
    // lets tools through, a Codex file Codex refuses whole.
    let claude = format!("{}/.claude/settings.json", machine.home);
    let text = std::fs::read_to_string(&claude).expect("settings");
    let edited = text
        .replacen("\"timeout\": 60", "\"timeout\": 20", 1)
        .replacen("\"matcher\": \"*\"", "\"matcher\": \"Bash\"", 1)
        .replace(
            "seal hook claude-code pre-skill-shell-command",
            "seal hook codex pre-skill-shell-command",
        );
    std::fs::write(&claude, edited).expect("edit");
    let lines = machine.doctor();
    assert!(
        has(
            &lines,
            "error",
            &[
                "Claude Code PreToolUse",
                "timeout 20 s is not above the hook's 30 s deadline"
            ]
        ),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "warn",
            &[
                "Claude Code PreToolUse",
                "matcher `Bash` lets calls it does not match go unchecked"
            ]
        ),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "error",
            &[
                "Claude Code PreSkillShellCommand",
                "answers in Codex's protocol"
            ]
        ),
        "{lines:#?}"
    );
    let text = std::fs::read_to_string(&claude).expect("settings");
    std::fs::write(
        &claude,
        text.replacen('{', "{\"disableAllHooks\": true,", 1),
    )
    .expect("edit");
    assert!(has(
        &machine.doctor(),
        "error",
        &["Claude Code: ~/.claude/settings.json: `disableAllHooks` is true"]
    ));
    let codex = format!("{}/.codex/hooks.json", machine.home);
    let text = std::fs::read_to_string(&codex).expect("hooks");
    std::fs::write(&codex, text.replacen('{', "{\"version\": 1,", 1)).expect("edit");
    assert!(has(&machine.doctor(), "error", &["Codex: ~/.codex/hooks.json: the top-level member `version` makes Codex refuse the whole file"]));
}

/// With `CODEX_HOME` set, Codex keys its review by that directory with its symbolic links
/// resolved, and reads `config.toml` there; the installer prints the entries a review records.
#[cfg(unix)]
#[test]
fn codex_home_is_keyed_by_its_real_path_and_the_review_entries_are_printed() {
    let machine = Machine::new("doctor-codex-home");
    let real = machine.dir.file("real-codex");
    std::fs::create_dir_all(&real).expect("dir");
    let link = machine.dir.file("codex-link");
    std::os::unix::fs::symlink(&real, &link).expect("link");
    let codex = |args: &[&str]| {
        support::seal_in(
            Some(Path::new(&machine.project)),
            args,
            b"",
            &[
                ("HOME", &machine.home),
                ("PATH", &machine.path),
                ("CODEX_HOME", &link),
            ],
        )
    };
    let run = codex(&["install", "codex", "--rules", RULES]);
    assert_eq!(run.code, 0, "{}", run.snapshot());
    assert!(Path::new(&format!("{real}/hooks.json")).exists());
    let key = format!("{real}/hooks.json:pre_tool_use:0:0");
    assert!(
        run.stdout.contains(&format!(
            "  [hooks.state.\"{key}\"]\n  trusted_hash = \"{RECORDED_PRE_TOOL_USE}\"\n"
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("review seal's hooks") || run.stdout.contains("Review seal's hooks"),
        "{}",
        run.stdout
    );

    let lines = |run: Run| -> Vec<String> {
        run.stdout
            .lines()
            .filter(|l| l.contains("Codex PreToolUse"))
            .map(str::to_owned)
            .collect()
    };
    // Reviewed under the link's path: not the key Codex uses.
    std::fs::write(
        format!("{real}/config.toml"),
        format!("[hooks.state.\"{link}/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"{RECORDED_PRE_TOOL_USE}\"\n"),
    )
    .expect("config");
    let found = lines(codex(&["doctor"]));
    assert!(has(&found, "error", &["never reviewed"]), "{found:#?}");
    // Under the real path: trusted. A config.toml in ~/.codex is not the one read.
    std::fs::write(
        format!("{real}/config.toml"),
        format!("[hooks.state.\"{key}\"]\ntrusted_hash = \"{RECORDED_PRE_TOOL_USE}\"\n"),
    )
    .expect("config");
    std::fs::create_dir_all(format!("{}/.codex", machine.home)).expect("dir");
    std::fs::write(format!("{}/.codex/config.toml", machine.home), "[hooks\n").expect("config");
    let found = lines(codex(&["doctor"]));
    assert!(has(&found, "ok", &["reviewed and trusted"]), "{found:#?}");
    // A config.toml that cannot be read, or is not TOML, is a problem.
    std::fs::write(format!("{real}/config.toml"), "[hooks\n").expect("config");
    let found = lines(codex(&["doctor"]));
    assert!(has(&found, "error", &["is not TOML"]), "{found:#?}");
    std::fs::remove_file(format!("{real}/config.toml")).expect("rm");
    std::fs::create_dir_all(format!("{real}/config.toml")).expect("dir");
    let found = lines(codex(&["doctor"]));
    assert!(has(&found, "error", &["cannot read"]), "{found:#?}");
}

/// `--binary`, `--state` and `--settings` as written into, and read from, the file.
#[test]
fn binary_state_and_settings_paths() {
    let dir = TempDir::new("install-paths");
    let settings = dir.file("settings.json");
    let command_of = |args: &[&str]| -> String {
        let mut all = vec![
            "install",
            "claude-code",
            "--settings",
            &settings,
            "--rules",
            RULES,
        ];
        all.extend_from_slice(args);
        let run = seal(&all, b"", &[]);
        assert_eq!(run.code, 0, "{}", run.snapshot());
        let value: serde_json::Value =
            serde_json::from_str(&String::from_utf8(read(&settings)).expect("utf-8"))
                .expect("json");
        value["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
            .as_str()
            .expect("command")
            .to_owned()
    };
    let prefix = "hook claude-code pre-tool-use --rules /home/op/.seal/rules.json";
    assert_eq!(
        command_of(&["--binary", "/opt/seal/bin/seal"]),
        format!("/opt/seal/bin/seal {prefix}")
    );
    assert_eq!(
        command_of(&["--binary", "seal-next"]),
        format!("seal-next {prefix}")
    );
    assert_eq!(command_of(&[]), format!("seal {prefix}"));
    assert_eq!(
        command_of(&["--state", "redis://10.0.0.5:6379/2"]),
        format!("seal {prefix} --state redis://10.0.0.5:6379/2")
    );
    let relative = seal_in_dir(
        &dir.path,
        &[
            "install",
            "claude-code",
            "--settings",
            "rel.json",
            "--rules",
            "r.json",
            "--state",
            "s.sqlite3",
            "--binary",
            "./bin/seal",
        ],
    );
    assert_eq!(relative.code, 0, "{}", relative.snapshot());
    let text = std::fs::read_to_string(dir.path.join("rel.json"))
        .expect("written in the current directory");
    let base = dir.path.display().to_string();
    assert!(text.contains(&format!("{base}/bin/seal hook claude-code pre-tool-use --rules {base}/r.json --state {base}/s.sqlite3")), "{text}");
    let empty = seal(
        &[
            "install",
            "claude-code",
            "--settings",
            &settings,
            "--rules",
            RULES,
            "--binary",
            "",
        ],
        b"",
        &[],
    );
    assert_eq!(empty.code, 2, "{}", empty.snapshot());
    let other = seal(
        &[
            "install",
            "claude-code",
            "--settings",
            &settings,
            "--rules",
            RULES,
            "--binary",
            "/usr/bin/guard",
        ],
        b"",
        &[],
    );
    assert_eq!(other.code, 2, "{}", other.snapshot());
    assert!(
        other.stderr.contains("must start with `seal`"),
        "{}",
        other.stderr
    );
    // A settings path that is a directory cannot be read: nothing is written.
    let run = seal(
        &[
            "install",
            "claude-code",
            "--settings",
            &dir.path.display().to_string(),
            "--rules",
            RULES,
        ],
        b"",
        &[],
    );
    assert_eq!(run.code, 3, "{}", run.snapshot());
    assert!(run.stderr.contains("cannot read it"), "{}", run.stderr);
}

fn seal_in_dir(dir: &Path, args: &[&str]) -> Run {
    support::seal_in(Some(dir), args, b"", &[])
}

#[cfg(unix)]
#[test]
fn doctor_reports_each_problem_once_and_only_sound_hooks_as_ok() {
    use std::os::unix::fs::PermissionsExt;
    let machine = Machine::new("doctor-edges");
    // A client directory with no seal hook in it.
    std::fs::create_dir_all(format!("{}/.claude", machine.home)).expect("dir");
    let lines = machine.doctor();
    assert!(
        has(
            &lines,
            "warn",
            &["Claude Code: no seal hook is installed (`seal install claude-code --rules FILE`)"]
        ),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|line| line.contains("Codex")),
        "{lines:#?}"
    );

    let claude = format!("{}/.claude/settings.json", machine.home);
    let hook = |event: &str, command: &str, timeout: u64| {
        format!(
            r#""{event}": [{{"hooks": [{{"type": "command", "command": "{command}", "timeout": {timeout}}}]}}]"#
        )
    };
    let write = |events: &[String]| {
        std::fs::write(&claude, format!("{{\"hooks\": {{{}}}}}", events.join(", ")))
            .expect("write");
    };
    write(&[
        hook(
            "PreToolUse",
            "seal hook claude-code pre-tool-use --rules /r.json --deadline 90",
            60,
        ),
        hook(
            "UserPromptSubmit",
            "seal hook claude-code user-prompt-submit --store /s.json",
            30,
        ),
    ]);
    let lines = machine.doctor();
    assert!(
        has(
            &lines,
            "error",
            &[
                "Claude Code PreToolUse",
                "timeout 60 s is not above the hook's 90 s deadline",
                "the call goes on under the client's own rules"
            ]
        ),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "error",
            &[
                "Claude Code UserPromptSubmit",
                "timeout 30 s is not above the hook's 30 s deadline",
                "the prompt goes on unverified"
            ]
        ),
        "{lines:#?}"
    );
    assert!(
        !has(&lines, "ok", &["Claude Code PreToolUse"]),
        "{lines:#?}"
    );
    assert!(
        !has(&lines, "ok", &["Claude Code UserPromptSubmit"]),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "warn",
            &["Claude Code PreSkillShellCommand: not wired, skills' shell lines run unchecked"]
        ),
        "{lines:#?}"
    );

    write(&[
        hook(
            "PreToolUse",
            "seal hook claude-code pre-tool-use --rules /r.json",
            31,
        ),
        hook(
            "PreSkillShellCommand",
            "seal hook claude-code pre-tool-use --rules /r.json",
            60,
        ),
    ]);
    let lines = machine.doctor();
    assert!(
        has(&lines, "ok", &["Claude Code PreToolUse", "(timeout 31 s)"]),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "error",
            &[
                "Claude Code PreSkillShellCommand",
                "is not the `pre-skill-shell-command` hook"
            ]
        ),
        "{lines:#?}"
    );
    assert!(
        has(
            &lines,
            "warn",
            &["Claude Code UserPromptSubmit: not wired, frames in prompts are not verified"]
        ),
        "{lines:#?}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|line| line.contains("Claude Code PreToolUse"))
            .count(),
        1,
        "{lines:#?}"
    );

    // A `seal` on the PATH that cannot be run is not found.
    let bin = machine.dir.file("noexec");
    std::fs::create_dir_all(&bin).expect("dir");
    std::fs::write(format!("{bin}/seal"), "#!/bin/sh\n").expect("write");
    std::fs::set_permissions(
        format!("{bin}/seal"),
        std::fs::Permissions::from_mode(0o644),
    )
    .expect("mode");
    let run = machine.seal(&["doctor"], &format!("{bin}:/usr/bin:/bin"));
    assert!(
        run.stdout.contains("`seal` is not found on the PATH"),
        "{}",
        run.stdout
    );

    // A settings file that cannot be read.
    std::fs::remove_file(&claude).expect("rm");
    std::fs::create_dir_all(&claude).expect("dir");
    let lines = machine.doctor();
    assert!(
        has(
            &lines,
            "error",
            &["Claude Code: ~/.claude/settings.json: cannot read it"]
        ),
        "{lines:#?}"
    );
}
