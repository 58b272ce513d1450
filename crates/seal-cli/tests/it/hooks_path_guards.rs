//! The self-protection and secret-read guards in the tool hooks, `policy check` and `doctor`
//! (spec/self-protection.md, spec/secret-guard.md), through the built binary: on by default,
//! the protected paths given by flags and by environment, whatever the rules and the fallback
//! allow, and reported by `doctor`.

use crate::support::{self, fixture, seal, tool_input, TempDir};
use serde_json::json;

/// The home directory of every run (the payloads' workspace is `/home/user/project`).
const HOME: &str = "/home/user";

/// Rules that allow every tool the guards read, so that only a guard can deny.
const ALLOW_ALL: &str = r#"{"permissions": {"allow": ["Bash", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Grep", "Glob"]}}"#;

/// A temporary directory with the allow-all rules file.
struct Setup {
    dir: TempDir,
    rules: String,
}

fn setup(label: &str) -> Setup {
    let dir = TempDir::new(label);
    let rules = dir.file("rules.json");
    std::fs::write(&rules, ALLOW_ALL).expect("rules written");
    Setup { dir, rules }
}

/// Runs `seal hook claude-code pre-tool-use` with `args` after it, `HOME` and `env`.
fn hook(args: &[&str], env: &[(&str, &str)], input: &[u8]) -> support::Run {
    hook_of("claude-code", args, env, input)
}

fn hook_of(harness: &str, args: &[&str], env: &[(&str, &str)], input: &[u8]) -> support::Run {
    let mut all = vec!["hook", harness, "pre-tool-use"];
    all.extend_from_slice(args);
    let mut environment = vec![("HOME", HOME)];
    environment.extend_from_slice(env);
    seal(&all, input, &environment)
}

/// The decision and its reason.
fn answer(run: &support::Run) -> (String, String) {
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let answer = run.json();
    let output = &answer["hookSpecificOutput"];
    (
        output["permissionDecision"]
            .as_str()
            .expect("permissionDecision")
            .to_owned(),
        output["permissionDecisionReason"]
            .as_str()
            .expect("permissionDecisionReason")
            .to_owned(),
    )
}

fn bash(command: &str) -> Vec<u8> {
    tool_input("Bash", json!({ "command": command }))
}

fn write(path: &str) -> Vec<u8> {
    tool_input("Write", json!({ "file_path": path, "content": "{}" }))
}

fn read(path: &str) -> Vec<u8> {
    tool_input("Read", json!({ "file_path": path }))
}

/// Asserts a deny whose reason names `guard` (`secret-guard` or `self-protection`) and
/// holds `text`.
fn denied_by(run: &support::Run, guard: &str, text: &str) {
    let (decision, reason) = answer(run);
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains(&format!("{guard}:")), "{reason}");
    assert!(reason.contains(text), "{reason}");
}

/// Asserts that no path guard denied (the rules decide: allow, or ask outside the workspace).
fn not_guarded(run: &support::Run) {
    let (decision, reason) = answer(run);
    assert!(
        !reason.contains("secret-guard:") && !reason.contains("self-protection:"),
        "{decision}: {reason}"
    );
}

#[test]
fn secrets_are_denied_whatever_the_rules_allow() {
    let s = setup("secrets");
    let rules = ["--rules", s.rules.as_str()];
    for default in ["ask", "allow"] {
        let args = [rules[0], rules[1], "--default", default];
        denied_by(
            &hook(&args, &[], &bash("cat ~/.ssh/id_rsa")),
            "secret-guard",
            "reading `/home/user/.ssh/id_rsa` (an SSH private key, pattern `ssh-keys`)",
        );
        denied_by(
            &hook(&args, &[], &bash("cd ~/.aws && base64 credentials")),
            "secret-guard",
            "`aws`",
        );
        denied_by(
            &hook(&args, &[], &bash("cat ../.netrc")),
            "secret-guard",
            "`netrc`",
        );
        denied_by(
            &hook(&args, &[], &bash("rg PRIVATE ~/.ssh")),
            "secret-guard",
            "everything below `/home/user/.ssh`",
        );
        denied_by(
            &hook(&args, &[], &read("/home/user/.kube/config")),
            "secret-guard",
            "`kube-config`",
        );
        denied_by(
            &hook(&args, &[], &read("/home/user/project/src/../.env")),
            "secret-guard",
            "`dotenv`",
        );
        denied_by(
            &hook(
                &args,
                &[],
                &tool_input(
                    "Grep",
                    json!({"pattern": "BEGIN", "path": "/home/user/.ssh"}),
                ),
            ),
            "secret-guard",
            "`ssh-keys`",
        );
        denied_by(
            &hook(
                &args,
                &[],
                &tool_input("Glob", json!({"pattern": "*", "path": "/home/user/.gnupg"})),
            ),
            "secret-guard",
            "`gnupg`",
        );
        denied_by(
            &hook(
                &args,
                &[],
                &tool_input(
                    "Edit",
                    json!({"file_path": "/home/user/project/.env.local", "old_string": "a", "new_string": "b"}),
                ),
            ),
            "secret-guard",
            "`dotenv`",
        );
        // Negative twins.
        assert_eq!(
            answer(&hook(&args, &[], &read("/home/user/project/.env.example"))).0,
            "allow"
        );
        assert_eq!(
            answer(&hook(&args, &[], &bash("cat .env.sample README.md"))).0,
            "allow"
        );
        not_guarded(&hook(&args, &[], &bash("cat ~/.ssh/id_rsa.pub")));
        not_guarded(&hook(&args, &[], &bash("ssh -i ~/.ssh/id_rsa host uptime")));
        not_guarded(&hook(&args, &[], &bash("ls -la ~/.ssh")));
        assert_eq!(
            answer(&hook(&args, &[], &bash("grep -r TODO src"))).0,
            "allow"
        );
    }
}

#[test]
fn client_settings_are_protected_where_the_clients_read_them() {
    let s = setup("settings");
    let args = ["--rules", s.rules.as_str(), "--default", "allow"];
    denied_by(
        &hook(&args, &[], &write("/home/user/.claude/settings.json")),
        "self-protection",
        "writing `/home/user/.claude/settings.json` (Claude Code's user settings)",
    );
    denied_by(
        &hook(
            &args,
            &[],
            &write("/home/user/project/.claude/settings.local.json"),
        ),
        "self-protection",
        "Claude Code's local project settings",
    );
    denied_by(
        &hook(&args, &[], &bash("rm -rf .claude")),
        "self-protection",
        "`.claude/settings",
    );
    denied_by(
        &hook(&args, &[], &bash("mv ~/.claude /tmp/c")),
        "self-protection",
        "Claude Code's user settings",
    );
    denied_by(
        &hook(
            &args,
            &[],
            &bash("sudo tee /etc/claude-code/managed-settings.json"),
        ),
        "self-protection",
        "managed settings",
    );
    denied_by(
        &hook(
            &args,
            &[],
            &bash("cd ~/.codex && sed -i s/a/b/ config.toml"),
        ),
        "self-protection",
        "Codex's configuration",
    );
    denied_by(
        &hook(&args, &[], &bash("cp /tmp/h.json ~/.codex/hooks.json")),
        "self-protection",
        "Codex's hook configuration",
    );
    // Reading them is fine; so is writing next to them.
    not_guarded(&hook(&args, &[], &bash("cat .claude/settings.json")));
    not_guarded(&hook(&args, &[], &read("/home/user/.claude/settings.json")));
    assert_eq!(answer(&hook(&args, &[], &bash("cp a.txt ."))).0, "allow");
    not_guarded(&hook(
        &args,
        &[],
        &write("/home/user/project/.claude/commands/x.md"),
    ));

    // Where the environment moves them.
    let moved = [
        ("CLAUDE_CONFIG_DIR", "/opt/claude"),
        ("CODEX_HOME", "/opt/codex"),
    ];
    denied_by(
        &hook(&args, &moved, &write("/opt/claude/settings.json")),
        "self-protection",
        "Claude Code's user settings",
    );
    denied_by(
        &hook(&args, &moved, &bash("tee /opt/codex/hooks.json")),
        "self-protection",
        "Codex's hook configuration",
    );
    denied_by(
        &hook(&args, &moved, &bash("mv /opt/codex /tmp/c")),
        "self-protection",
        "Codex's configuration",
    );
    not_guarded(&hook(&args, &[], &write("/opt/claude/settings.json")));
    not_guarded(&hook(&args, &[], &bash("tee /opt/codex/hooks.json")));
}

/// seal's own files in a temporary directory: keys, store, state, an extra protected path.
struct SealFiles {
    keys: String,
    store: String,
    state: String,
    extra: String,
}

fn seal_files(s: &Setup) -> SealFiles {
    let files = SealFiles {
        keys: s.dir.file("keys.json"),
        store: s.dir.file("store.json"),
        state: s.dir.file("replay.sqlite3"),
        extra: s.dir.file("policy.d"),
    };
    std::fs::create_dir_all(&files.extra).expect("extra folder");
    files
}

/// The self-protection guard's refusals and passes for `files` and the rules `rules`, the
/// hook configured by `args` and `env`.
fn check_seal_files(files: &SealFiles, rules: &str, args: &[&str], env: &[(&str, &str)]) {
    let run = |input: &[u8]| hook(args, env, input);
    denied_by(
        &run(&write(&files.keys)),
        "self-protection",
        "seal's secret key file",
    );
    denied_by(&run(&read(&files.keys)), "self-protection", "reading");
    denied_by(
        &run(&bash(&format!("base64 {}", files.keys))),
        "self-protection",
        "seal's secret key file",
    );
    denied_by(
        &run(&write(&files.store)),
        "self-protection",
        "seal's trust store",
    );
    denied_by(
        &run(&bash(&format!("rm {}-wal", files.state))),
        "self-protection",
        "seal's replay state",
    );
    denied_by(&run(&write(rules)), "self-protection", "seal's rules file");
    denied_by(
        &run(&bash(&format!("sed -i s/deny/allow/ {rules}"))),
        "self-protection",
        "seal's rules file",
    );
    denied_by(
        &run(&bash(&format!("tee {}/a.json", files.extra))),
        "self-protection",
        "a path the operator protects",
    );
    // The same paths, read: only the key file is refused.
    not_guarded(&run(&read(rules)));
    not_guarded(&run(&bash(&format!("cat {rules}"))));
    not_guarded(&run(&read(&files.store)));
}

#[test]
fn seal_files_given_by_flags_are_protected() {
    let s = setup("flags");
    let files = seal_files(&s);
    let args = [
        "--rules",
        &s.rules,
        "--keys",
        &files.keys,
        "--store",
        &files.store,
        "--state",
        &files.state,
        "--protect",
        &files.extra,
        "--default",
        "allow",
    ];
    check_seal_files(&files, &s.rules, &args, &[]);
}

#[test]
fn seal_files_given_by_environment_are_protected() {
    let s = setup("env");
    let files = seal_files(&s);
    let env = [
        ("SEAL_RULES", s.rules.as_str()),
        ("SEAL_KEYS", files.keys.as_str()),
        ("SEAL_STORE", files.store.as_str()),
        ("SEAL_STATE", files.state.as_str()),
        ("SEAL_PROTECT", files.extra.as_str()),
        ("SEAL_DEFAULT", "allow"),
    ];
    check_seal_files(&files, &s.rules, &[], &env);
}

#[test]
fn the_running_binary_and_the_readme_directory_are_protected() {
    let s = setup("binary");
    let args = ["--rules", s.rules.as_str(), "--default", "allow"];
    let binary = env!("CARGO_BIN_EXE_seal");
    denied_by(
        &hook(&args, &[], &bash(&format!("cp /tmp/evil {binary}"))),
        "self-protection",
        "the running seal binary",
    );
    denied_by(
        &hook(&args, &[], &bash("mv ~/.seal ~/x")),
        "self-protection",
        "seal's directory",
    );
    denied_by(
        &hook(&args, &[], &bash("cat ~/.seal/keys.json")),
        "self-protection",
        "seal's secret key file",
    );
    not_guarded(&hook(&args, &[], &bash("cat ~/.seal/rules.json")));
}

#[test]
fn the_guards_turn_off_by_flag_and_by_environment() {
    let s = setup("off");
    let args = ["--rules", s.rules.as_str(), "--default", "allow"];
    let settings = bash("tee ~/.claude/settings.json");
    let env_file = bash("cat .env");
    denied_by(
        &hook(&args, &[], &settings),
        "self-protection",
        "user settings",
    );
    denied_by(&hook(&args, &[], &env_file), "secret-guard", "dotenv");
    let mut off = args.to_vec();
    off.extend(["--self-protection", "off", "--secret-guard", "off"]);
    not_guarded(&hook(&off, &[], &settings));
    assert_eq!(answer(&hook(&off, &[], &env_file)).0, "allow");
    let env = [
        ("SEAL_SELF_PROTECTION", "off"),
        ("SEAL_SECRET_GUARD", "off"),
    ];
    not_guarded(&hook(&args, &env, &settings));
    assert_eq!(answer(&hook(&args, &env, &env_file)).0, "allow");
    // A value that is not `on` or `off` fails closed.
    let (decision, _) = answer(&hook(&args, &[("SEAL_SECRET_GUARD", "maybe")], &bash("ls")));
    assert_eq!(decision, "deny");
}

#[test]
fn secret_patterns_are_added_and_dropped_by_flag_and_by_environment() {
    let s = setup("patterns");
    let args = ["--rules", s.rules.as_str(), "--default", "allow"];
    let token = bash("cat ~/.config/acme/token");
    let pem = bash("cat certs/server.pem");
    not_guarded(&hook(&args, &[], &token));
    let mut listed = args.to_vec();
    listed.extend(["--secret", "~/.config/acme/token", "--secret", "*.pem"]);
    denied_by(
        &hook(&listed, &[], &token),
        "secret-guard",
        "a secret listed by the operator, pattern `~/.config/acme/token`",
    );
    denied_by(&hook(&listed, &[], &pem), "secret-guard", "pattern `*.pem`");
    let env = [("SEAL_SECRETS", "~/.config/acme/token:*.pem")];
    denied_by(
        &hook(&args, &env, &token),
        "secret-guard",
        "`~/.config/acme/token`",
    );
    denied_by(&hook(&args, &env, &pem), "secret-guard", "`*.pem`");

    let mut dropped = args.to_vec();
    dropped.extend(["--allow-secret", "dotenv"]);
    assert_eq!(answer(&hook(&dropped, &[], &bash("cat .env"))).0, "allow");
    denied_by(
        &hook(&dropped, &[], &bash("cat ~/.npmrc")),
        "secret-guard",
        "npmrc",
    );
    let env = [("SEAL_ALLOW_SECRETS", "dotenv,npmrc")];
    assert_eq!(answer(&hook(&args, &env, &bash("cat .env"))).0, "allow");
    not_guarded(&hook(&args, &env, &bash("cat ~/.npmrc")));
    // An id no default pattern has is a mistake: the hook fails closed and says why.
    let mut typo = args.to_vec();
    typo.extend(["--allow-secret", "dot-env"]);
    let (decision, reason) = answer(&hook(&typo, &[], &bash("ls")));
    assert_eq!(decision, "deny");
    assert!(
        reason.contains("no default secret pattern has this id"),
        "{reason}"
    );
}

#[test]
fn codex_hooks_run_the_guards() {
    let s = setup("codex");
    let args = ["--rules", s.rules.as_str(), "--default", "allow"];
    let codex = |input: &[u8]| hook_of("codex", &args, &[], input);
    let patch = "*** Begin Patch\n*** Add File: .claude/settings.json\n+{}\n*** End Patch\n";
    let run = codex(&tool_input("apply_patch", json!({ "command": patch })));
    denied_by(&run, "self-protection", "Claude Code's project settings");
    let run = codex(&bash("cat ~/.ssh/id_ed25519"));
    denied_by(&run, "secret-guard", "ssh-keys");
    let inside = "*** Begin Patch\n*** Add File: src/x.rs\n+x\n*** End Patch\n";
    let run = codex(&tool_input("apply_patch", json!({ "command": inside })));
    assert_eq!(run.stdout, "{}\n", "{}", run.snapshot());
}

#[test]
fn policy_check_denies_even_when_the_fallback_allows() {
    let s = setup("check");
    let check = |call: serde_json::Value| {
        let mut input = call;
        input["cwd"] = json!("/home/user/project");
        seal(
            &[
                "policy",
                "check",
                "--rules",
                &s.rules,
                "--default",
                "allow",
                "--json",
            ],
            input.to_string().as_bytes(),
            &[("HOME", HOME)],
        )
    };
    let run = check(json!({"tool_name": "Bash", "tool_input": {"command": "cat ~/.ssh/id_rsa"}}));
    assert_eq!(run.code, 11, "{}", run.snapshot());
    let trace = run.json()["trace"].to_string();
    assert!(trace.contains("listener secrets: deny"), "{trace}");
    let run = check(
        json!({"tool_name": "Write", "tool_input": {"file_path": "/home/user/.claude/settings.json", "content": "{}"}}),
    );
    assert_eq!(run.code, 11, "{}", run.snapshot());
    assert!(run.json()["matched"]
        .to_string()
        .contains("self-protection-guard:claude-user-settings"));
    let run = check(json!({"tool_name": "Bash", "tool_input": {"command": "git status"}}));
    assert_eq!(run.code, 0, "{}", run.snapshot());
    let trace = run.json()["trace"].to_string();
    for stage in [
        "listener self-protection",
        "listener secrets",
        "global-guard self-protection-guard",
        "global-guard secret-guard",
    ] {
        assert!(trace.contains(stage), "{stage}: {trace}");
    }
    // Off, the rules and the fallback decide alone.
    let off = seal(
        &[
            "policy", "check", "--rules", &s.rules, "--default", "allow", "--secret-guard", "off",
            "--self-protection", "off",
        ],
        json!({"tool_name": "Bash", "tool_input": {"command": "cat .env"}, "cwd": "/home/user/project"})
            .to_string()
            .as_bytes(),
        &[("HOME", HOME)],
    );
    assert_eq!(off.code, 0, "{}", off.snapshot());
}

#[test]
fn doctor_reports_both_guards_and_everything_they_protect() {
    let store = fixture("store.json");
    let doctor = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec![
            "doctor",
            "--store",
            &store,
            "--state",
            "/nonexistent-seal-state/replay.sqlite3",
        ];
        args.extend_from_slice(extra);
        let mut environment = vec![("HOME", HOME)];
        environment.extend_from_slice(env);
        seal(&args, b"", &environment)
    };
    let run = doctor(
        &[
            "--protect",
            "/srv/policy/",
            "--secret",
            "*.pem",
            "--allow-secret",
            "dotenv",
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.snapshot());
    for line in [
        "ok    self-protection on (",
        "ok    self-protection `protected`: directory `/srv/policy` kept from writes (a path the operator protects)",
        "ok    self-protection `claude-project-settings`: file `.claude/settings.json` kept from writes (Claude Code's project settings)",
        "ok    self-protection `seal-state`: file `/nonexistent-seal-state/replay.sqlite3-wal` kept from writes (seal's replay state)",
        "ok    self-protection `seal-dir`: directory `~/.seal` kept from writes",
        "ok    self-protection `seal-keys`: file `~/.seal/keys.json` kept from reads and writes (seal's secret key file)",
        "ok    secret guard on (16 patterns;",
        "ok    secret `ssh-keys`: `~/.ssh/**` except `*.pub`, `known_hosts*` (an SSH private key)",
        "ok    secret `*.pem`: `*.pem` (a secret listed by the operator)",
    ] {
        assert!(run.stdout.contains(line), "{line}\n{}", run.stdout);
    }
    assert!(!run.stdout.contains("secret `dotenv`"), "{}", run.stdout);
    // The environment the hooks read.
    let run = doctor(
        &["--json"],
        &[
            ("SEAL_SELF_PROTECTION", "off"),
            ("CODEX_HOME", "/opt/codex"),
        ],
    );
    let checks = run.json()["checks"].to_string();
    assert!(
        checks.contains("self-protection off (--self-protection off or SEAL_SELF_PROTECTION=off)"),
        "{checks}"
    );
    let run = doctor(
        &[],
        &[("SEAL_SECRET_GUARD", "off"), ("CODEX_HOME", "/opt/codex")],
    );
    assert!(
        run.stdout.contains("warn  secret guard off"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("`/opt/codex/hooks.json` kept from writes"),
        "{}",
        run.stdout
    );
    // A configuration the hooks would refuse is a problem.
    let run = doctor(&["--allow-secret", "nope"], &[]);
    assert_eq!(run.code, 14, "{}", run.snapshot());
    assert!(
        run.stdout
            .contains("error path guards: --allow-secret `nope`"),
        "{}",
        run.stdout
    );
}
