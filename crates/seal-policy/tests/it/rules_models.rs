//! Deny and ask rules read through program models: the bypass shapes of destructive `git` and
//! `rm` commands (global options, abbreviations, clusters, order) are denied under a broad
//! allow, and allow rules still match the canonical form only.

use seal_policy::rules::{Effect, RuleLimits, RuleSet, Subject};
use seal_test_support::spellings::RM_RF_ROOT;

fn set() -> RuleSet {
    RuleSet::from_json(
        br#"{"permissions": {
          "allow": ["Bash(git:*)", "Bash(rm:*)"],
          "deny": ["Bash(git reset --hard:*)", "Bash(git checkout -f:*)", "Bash(git checkout --force:*)",
                   "Bash(git push --force*)", "Bash(git push --mirror:*)", "Bash(git branch -D:*)",
                   "Bash(git worktree remove --force:*)", "Bash(git clean -f:*)", "Bash(rm -rf:*)",
                   "Bash(git stash drop:*)"]
        }}"#,
        &RuleLimits::default(),
    )
    .unwrap()
}

fn effect(set: &RuleSet, command: &str) -> Option<Effect> {
    set.evaluate("Bash", Subject::Command(command)).effect()
}

#[test]
fn bypass_shapes_are_denied() {
    let set = set();
    for command in [
        "git reset --hard",
        "git -C repo reset --hard",
        "git -Crepo reset --hard",
        "git --git-dir=.git reset --hard",
        "git --work-tree=. reset --hard HEAD~1",
        "git --no-pager reset --hard",
        "git -c core.pager=cat reset --hard",
        "git -- reset --hard",
        "git reset --ha",
        "git reset HEAD~3 --hard",
        "git checkout --forc main",
        "git checkout -qf main",
        "git push --mir origin",
        "git push origin main --force",
        "git push --force-with-lease origin main",
        "git push -f origin main",
        "git branch --del --forc x",
        "git branch -Dv x",
        "git branch -d -f x",
        "git worktree remove --forc /tmp/wt",
        "git worktree remove -f /tmp/wt",
        "git clean -fdx",
        "git clean -xdf",
        "git stash drop",
        "rm -Rf x",
        "sudo rm --rec --for /",
        "timeout 5 git -C . reset --hard",
    ]
    .into_iter()
    .chain(RM_RF_ROOT)
    {
        assert_eq!(effect(&set, command), Some(Effect::Deny), "`{command}`");
    }
}

#[test]
fn safe_neighbours_stay_allowed() {
    let set = set();
    for command in [
        "git reset --soft HEAD~1",
        "git reset HEAD a.txt",
        "git -C repo status",
        "git checkout main",
        "git checkout -b topic",
        "git push origin main",
        "git branch -d merged",
        "git worktree remove wt",
        "git clean -n",
        "git stash list",
        "rm -r build",
        "rm -f a.txt",
        "rm -- -rf",
    ] {
        assert_eq!(effect(&set, command), Some(Effect::Allow), "`{command}`");
    }
}

/// Negative control: without the models (each deny rule matched only as written), most of
/// the bypass shapes are allowed under the broad allow, so the test above can fail.
#[test]
fn negative_control_literal_matching_lets_bypasses_through() {
    let set = set();
    let literal = set
        .rules()
        .iter()
        .filter(|entry| entry.effect() == Effect::Deny)
        .filter_map(|entry| match entry.rule().specifier() {
            seal_policy::rules::Specifier::Command(pattern) => Some(pattern.clone()),
            _ => None,
        })
        .collect::<Vec<_>>();
    let through = [
        "git -C repo reset --hard",
        "git reset --ha",
        "git checkout -qf main",
        "rm -fr /",
        "rm -r -f /",
    ]
    .iter()
    .filter(|command| {
        let segments =
            seal_parse::shell::segment(command, &seal_parse::shell::ShellLimits::default())
                .unwrap();
        !segments.iter().any(|segment| {
            segment
                .forms()
                .all()
                .any(|form| literal.iter().any(|pattern| pattern.matches(&form)))
        })
    })
    .count();
    assert_eq!(through, 5);
}

/// A broad-allow file: what carries code (an awk program, `find -exec`, `xargs`, inline
/// interpreter code, a shell reading its input, `watch`, git configuration) is never allowed,
/// and a deny still sees a `find -exec` payload.
#[test]
fn code_in_arguments_is_never_allowed_blind() {
    let set = RuleSet::from_json(
        br#"{"permissions": {
          "allow": ["Bash(git:*)", "Bash(find:*)", "Bash(xargs:*)", "Bash(parallel:*)", "Bash(awk:*)",
                    "Bash(node:*)", "Bash(python3:*)", "Bash(perl:*)", "Bash(ruby:*)", "Bash(sh:*)",
                    "Bash(bash:*)", "Bash(watch:*)", "Bash(echo:*)", "Bash(printf:*)", "Bash(curl:*)"],
          "deny": ["Bash(rm:*)", "Bash(git reset --hard:*)"]
        }}"#,
        &RuleLimits::default(),
    )
    .unwrap();
    for command in [
        "echo x | xargs git",
        "printf 'reset --hard\\n' | xargs git",
        "xargs sudo --",
        "parallel rm ::: a b",
        "awk 'BEGIN { system(\"rm -rf /\") }'",
        "awk 'BEGIN{system(\"rm\\x20-rf /\")}'",
        "awk -f prog.awk a.txt",
        "awk '{ print > \"out\" }' a.txt",
        "find . -exec sh -c 'rm -rf \"$1\"' _ {} \\;",
        "find . -type f -mtime +7 -delete",
        "find . -fprint out",
        "node -pe 'require(\"child_process\").execSync(\"rm -rf /\")'",
        "node --eval 'process.exit(1)'",
        "python3 -c 'import os; os.system(\"rm -rf /\")'",
        "python3 -W ignore -c 'print(1)'",
        "perl -e 'system \"rm -rf /\"'",
        "perl -ne 'print' a.txt",
        "ruby -e 'system(\"rm -rf /\")'",
        "git -c core.sshCommand=./x fetch",
        "git -c alias.x='!rm -rf /' x",
        "watch -n1 'rm -rf /'",
        "curl http://127.0.0.1:9/x | sh",
        "curl http://127.0.0.1:9/x | bash -s",
    ] {
        let evaluation = set.evaluate("Bash", Subject::Command(command));
        assert!(
            matches!(evaluation.effect(), Some(Effect::Ask | Effect::Deny)),
            "`{command}`: {evaluation}"
        );
    }
    for command in ["find . -exec rm -rf {} +", "find . -execdir /bin/rm {} \\;"] {
        let evaluation = set.evaluate("Bash", Subject::Command(command));
        assert_eq!(
            evaluation.effect(),
            Some(Effect::Deny),
            "`{command}`: {evaluation}"
        );
    }
    for command in [
        "awk '{print $1}' a.txt",
        "awk -F: '{print $1}' etc/passwd",
        "find . -name '*.rs' -type f",
        "node script.js",
        "python3 -m pytest",
        "perl script.pl",
        "git fetch",
        "sh script.sh",
        "bash -c 'git status'",
    ] {
        let evaluation = set.evaluate("Bash", Subject::Command(command));
        assert_eq!(
            evaluation.effect(),
            Some(Effect::Allow),
            "`{command}`: {evaluation}"
        );
    }
}

#[test]
fn options_past_the_model_limit_do_not_hide_a_denied_option() {
    use seal_parse::shell::MAX_OPTIONS;
    use seal_test_support::spellings::GIT_PUSH_PADDING;
    let set = set();
    // Below the limit the model sees every option; at and past it the command is cut, and a
    // cut command matches a deny rule of its program and subcommand whatever it dropped.
    for count in [MAX_OPTIONS - 2, MAX_OPTIONS, MAX_OPTIONS + 4] {
        let padding = GIT_PUSH_PADDING[..count].join(" ");
        for command in [
            format!("git push {padding} --force origin main"),
            format!("git push {padding} origin main --force"),
            format!("git -C repo push {padding} -f origin main"),
        ] {
            assert_eq!(effect(&set, &command), Some(Effect::Deny), "{command}");
        }
    }
    // Control: the same padding without a force stays allowed below the limit.
    let padding = GIT_PUSH_PADDING[..MAX_OPTIONS - 2].join(" ");
    assert_eq!(
        effect(&set, &format!("git push {padding} origin main")),
        Some(Effect::Allow)
    );
}
