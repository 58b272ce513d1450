//! Paths in commands, case by case (spec/paths.md): where an allow stops, what the path rules
//! reach, how `cd` and wrappers that change directory move the working directory, the
//! client's modes, and the parts of an unanalysable command. Each case has a twin that differs
//! in one thing and gets the other answer.

use seal_policy::rules::{ClientDefault, Effect, RuleSet, Subject};

const ROOT: &str = "/home/dev/app";
const HOME: &str = "/home/dev";

fn set(allow: &[&str], ask: &[&str], deny: &[&str]) -> RuleSet {
    let mut rules = RuleSet::default();
    for (effect, list) in [
        (Effect::Allow, allow),
        (Effect::Ask, ask),
        (Effect::Deny, deny),
    ] {
        for rule in list {
            rules.push(effect, rule).unwrap();
        }
    }
    rules.with_workspace_root(ROOT).with_home_dir(HOME)
}

fn bash(rules: &RuleSet, command: &str) -> Option<Effect> {
    rules.evaluate("Bash", Subject::Command(command)).effect()
}

fn cases(rules: &RuleSet, list: &[(&str, Option<Effect>)]) {
    for (command, want) in list {
        let got = rules.evaluate("Bash", Subject::Command(command));
        assert_eq!(got.effect(), *want, "`{command}`: {got}");
    }
}

const ALLOW: Option<Effect> = Some(Effect::Allow);
const ASK: Option<Effect> = Some(Effect::Ask);
const DENY: Option<Effect> = Some(Effect::Deny);

#[test]
fn an_allow_stops_at_the_workspace() {
    let rules = set(
        &["Bash(cat:*)", "Bash(cp:*)", "Bash(env:*)", "Bash(cd:*)"],
        &[],
        &[],
    );
    cases(
        &rules,
        &[
            ("cat a.txt", ALLOW),
            ("cat ~/.ssh/id_rsa", ASK),
            ("cat /home/dev/app/a.txt", ALLOW),
            ("cat /home/dev/other/a.txt", ASK),
            ("cat ../other/a.txt", ASK),
            ("cat ../app/a.txt", ALLOW),
            ("cat sub/../a.txt", ASK),
            ("cp a.txt b.txt", ALLOW),
            ("cp a.txt ~/.seal/rules.json", ASK),
            ("cp -t sub a.txt", ASK),
            ("cat '~/x'", ASK),
            ("cd sub && cat a.txt", ALLOW),
            ("cd sub && cat ../../x", ASK),
            ("cd .. && cat a.txt", ASK),
            ("cd - && cat a.txt", ASK),
            ("env -C sub cat a.txt", ALLOW),
            ("env -C ~/.ssh cat id_rsa", ASK),
            ("env --chdir=/tmp cat x", ASK),
            ("env -C/tmp cat x", ASK),
        ],
    );
    // Bare `Bash` is no exception.
    let bare = set(&["Bash"], &[], &[]);
    cases(
        &bare,
        &[
            ("cat a.txt && ls sub", ALLOW),
            ("cat ~/notes.txt", ASK),
            ("sudo -D /etc cat passwd", ASK),
            ("frob --config=~/.frob", ASK),
            ("frob --config=conf/frob", ALLOW),
            ("KUBECONFIG=/etc/kube kubectl get pods", ASK),
            ("KUBECONFIG=kube/config kubectl get pods", ALLOW),
            ("cd sub; cat ../a.txt", ASK),
            ("cd sub; cat a.txt", ALLOW),
            ("cd -; cat /home/dev/app/a.txt", ALLOW),
            ("cd -; cat a.txt", ASK),
        ],
    );
}

#[test]
fn path_rules_cover_what_an_allow_reaches() {
    let rules = set(
        &[
            "Bash(cat:*)",
            "Bash(cp:*)",
            "Read(~/shared/**)",
            "Edit(~/out/**)",
        ],
        &[],
        &[],
    );
    cases(
        &rules,
        &[
            ("cat ~/shared/x.txt", ALLOW),
            ("cat ~/sharedx/x.txt", ASK),
            ("cp ~/shared/x.txt a.txt", ALLOW),
            ("cp a.txt ~/shared/x.txt", ASK),
            ("cp a.txt ~/out/x.txt", ALLOW),
        ],
    );
    let added = set(&["Bash(cat:*)"], &[], &[]).with_added_dir("~/lib");
    cases(
        &added,
        &[("cat ~/lib/a.rs", ALLOW), ("cat ~/libx/a.rs", ASK)],
    );
}

#[test]
fn path_rules_reach_every_program() {
    let rules = set(
        &["Bash"],
        &["Read(./secret/**)"],
        &["Read(~/.ssh/**)", "Edit(~/.bashrc)"],
    );
    cases(
        &rules,
        &[
            ("xxd ~/.ssh/id_rsa", DENY),
            ("tar -cf x.tar ~/.ssh", DENY),
            ("python3 tool.py ~/.ssh/id_rsa", DENY),
            ("dd if=~/.ssh/id_rsa of=k", DENY),
            ("dd if=a.txt of=~/.bashrc", DENY),
            ("ln -sf a.txt ~/.bashrc", DENY),
            ("cat ~/.bashrc", ASK),
            ("cd ~ && cat .ssh/id_rsa", DENY),
            ("env -C ~/.ssh cat id_rsa", DENY),
            ("cat secret/k", ASK),
            ("echo ~/.ssh/id_rsa", ALLOW),
            // What a substitution prints is not seen: `echo`'s words are text. The command still
            // asks (it is unanalysable); a substitution that reads the path denies.
            ("cat $(echo ~/.ssh/id_rsa)", ASK),
            ("cat $(ls ~/.ssh/id_rsa)", DENY),
            ("echo x > ~/.bashrc", DENY),
            ("cat < ~/.ssh/id_rsa", DENY),
            ("echo x > out.txt", ASK),
        ],
    );
}

#[test]
fn the_client_modes() {
    let default = set(&[], &[], &[]).with_client_default(ClientDefault::ClaudeCode);
    let edits = set(&[], &[], &[]).with_client_default(ClientDefault::ClaudeCodeAcceptEdits);
    for (command, in_default, in_edits) in [
        ("ls -la src", ALLOW, ALLOW),
        ("cat ~/notes.txt", None, None),
        ("mkdir -p src/util", None, ALLOW),
        ("touch src/a.rs && rm src/b.rs", None, ALLOW),
        ("mv a.txt docs/a.txt", None, ALLOW),
        ("mkdir /tmp/x", None, None),
        ("cp a.txt ../b.txt", None, None),
        ("touch .git/hooks/pre-commit", None, None),
        ("NODE_ENV=test ls", ALLOW, ALLOW),
        ("PATH=. ls", None, None),
    ] {
        assert_eq!(bash(&default, command), in_default, "default: `{command}`");
        assert_eq!(bash(&edits, command), in_edits, "accept-edits: `{command}`");
    }
    let write = |rules: &RuleSet, path: &str| {
        rules
            .evaluate("Write", Subject::Path(&format!("{ROOT}/{path}")))
            .effect()
    };
    assert_eq!(write(&default, "src/a.rs"), None);
    assert_eq!(write(&edits, "src/a.rs"), ALLOW);
    assert_eq!(write(&edits, ".claude/settings.json"), None);
}

#[test]
fn environment_prefixes_and_quoted_rules_as_claude_code_reads_them() {
    let rules = set(
        &["Bash(npm test:*)", "Bash(git commit -m \"msg\")"],
        &[],
        &[],
    );
    cases(
        &rules,
        &[
            ("npm test", ALLOW),
            ("NODE_ENV=test npm test", ALLOW),
            ("NODE_ENV=test RUST_LOG=debug npm test", ALLOW),
            ("VAR=1 npm test", None),
            ("NODE_ENV=\"test\" npm test", None),
            ("NODE_ENV= npm test", None),
            ("LANG=C npm test", ALLOW),
            ("LANG=x npm test", None),
            ("git commit -m \"msg\"", ALLOW),
            ("git commit -m 'msg'", None),
            ("git commit -m msg", None),
            ("npm test 2>&1", ALLOW),
            ("npm test > /dev/null", ALLOW),
        ],
    );
}
