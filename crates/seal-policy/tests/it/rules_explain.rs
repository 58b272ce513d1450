//! `RuleSet::explain` never disagrees with `RuleSet::evaluate`: the decision read off the
//! explanation's matches alone (deny if any site shows a deny, ask if any shows an ask or the
//! command is unanalysable or carries code, allow if every canonical form and every launcher
//! shows an allow) equals the evaluation's, on generated rule sets and commands with wrappers,
//! modelled spellings (`git -C . reset --ha`, `rm -fr`), payloads (`find -exec`, `bash -c`) and
//! hostile shapes; the site the evaluation names is listed with the same rule. Negative
//! control: an explanation that drops model matches is caught. And
//! `DestructiveGuard::explain_command` gives first what `check_command` gives.

use proptest::prelude::{prop, prop_assert, prop_assert_eq, Strategy};
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use seal_policy::destructive::DestructiveGuard;
use seal_policy::rules::{
    Effect, Evaluation, Explanation, FormKind, MatchedBy, RuleSet, Site, Subject,
};

/// The effect the explanation's matches alone give.
fn read_off(explained: &Explanation, any_allow: bool) -> Option<Effect> {
    let form_matches = || {
        explained
            .segments
            .iter()
            .flat_map(|s| &s.forms)
            .flat_map(|f| &f.matches)
    };
    let launcher_matches = || {
        explained
            .launchers
            .iter()
            .flat_map(|l| l.matches.iter().map(|(_, m)| m))
    };
    let path_matches = || explained.paths.iter().flat_map(|p| &p.matches);
    let all = || {
        explained
            .tool
            .iter()
            .chain(&explained.written)
            .chain(form_matches())
            .chain(launcher_matches())
            .chain(path_matches())
            .chain(&explained.readable)
    };
    // An allow stops at the workspace: a path that blocks it asks instead.
    let blocked = explained.paths.iter().any(|p| p.blocks_allow.is_some())
        || explained.segments.iter().any(|s| s.blocks_allow.is_some());
    if all().any(|m| m.effect == Effect::Deny) {
        return Some(Effect::Deny);
    }
    let carries = explained
        .segments
        .iter()
        .flat_map(|s| &s.forms)
        .any(|f| f.carried.is_some())
        || explained.launchers.iter().any(|l| l.carried.is_some());
    if all().any(|m| m.effect == Effect::Ask) || explained.unanalysable.is_some() || carries {
        return Some(Effect::Ask);
    }
    if explained.tool.iter().any(|m| m.effect == Effect::Allow) {
        return Some(if blocked { Effect::Ask } else { Effect::Allow });
    }
    if !any_allow {
        return None;
    }
    let segments = explained.segments.iter().all(|s| {
        s.forms.first().is_some_and(|f| {
            f.kind == FormKind::Canonical && f.matches.iter().any(|m| m.effect == Effect::Allow)
        })
    });
    let launchers = explained.launchers.iter().all(|l| {
        l.matches
            .iter()
            .any(|(form, m)| m.effect == Effect::Allow && *form == l.words.join(" "))
    });
    match (segments && launchers, blocked) {
        (true, true) => Some(Effect::Ask),
        (true, false) => Some(Effect::Allow),
        (false, _) => None,
    }
}

/// The same, with the matches found through a program model dropped: the control that must be
/// caught (a deny read through a model would go missing).
fn read_off_without_models(explained: &Explanation, any_allow: bool) -> Option<Effect> {
    let mut explained = explained.clone();
    for segment in &mut explained.segments {
        for form in &mut segment.forms {
            form.matches.retain(|m| m.by != MatchedBy::Model);
        }
    }
    read_off(&explained, any_allow)
}

type ReadOff = fn(&Explanation, bool) -> Option<Effect>;

/// Rules (effect and text) and a command.
type Case = (Vec<(Effect, String)>, String);

fn set_of(rules: &[(Effect, String)]) -> RuleSet {
    let mut set = RuleSet::default();
    for (effect, text) in rules {
        set.push(*effect, text).unwrap();
    }
    set
}

fn agrees(read: ReadOff) -> impl Fn(Case) -> Result<(), TestCaseError> {
    move |(rules, command)| {
        let set = set_of(&rules);
        let evaluation = set.evaluate("Bash", Subject::Command(&command));
        let explained = set.explain("Bash", Subject::Command(&command));
        prop_assert_eq!(&explained.evaluation, &evaluation);
        let any_allow = rules.iter().any(|(e, _)| *e == Effect::Allow);
        prop_assert_eq!(
            read(&explained, any_allow),
            evaluation.effect(),
            "`{}` under {:?}: {}",
            command,
            rules,
            evaluation
        );
        // The site the evaluation names is listed, with the same rule.
        if let Evaluation::Deny(m) = &evaluation {
            if let Site::Segment { index, form, .. } = &m.site {
                let listed = explained.segments[*index].forms.iter().any(|f| {
                    f.words.join(" ") == *form && f.matches.iter().any(|x| x.rule == m.rule)
                });
                prop_assert!(listed, "`{}`: {} not listed", command, m);
            }
        }
        Ok(())
    }
}

const PREFIXES: &[&str] = &[
    "",
    "",
    "sudo ",
    "env X=1 ",
    "X=1 ",
    "nice -n 5 ",
    "timeout 5 ",
    "nohup ",
    "/usr/bin/",
    "sudo /usr/bin/",
];
const SEGMENTS: &[&str] = &[
    "git status",
    "git log --oneline",
    "git reset --hard",
    "git reset --ha",
    "git -C . reset --ha",
    "git -Crepo reset --hard HEAD",
    "git --no-pager reset --hard",
    "git push --force origin main",
    "git push -f origin main",
    "git push origin +refs/heads/main",
    "git clean -fd",
    "git checkout -qf main",
    "rm -rf t",
    "rm -fr t",
    "rm -r -f t",
    "rm --recursive --force t",
    "rm t",
    "ls -la",
    "cat a.txt",
    "find . -name x",
    "find . -exec rm -rf {} +",
    "find . -exec /bin/rm -rf {} \\;",
    "find . -type f -delete",
    "xargs rm",
    "awk '{print}' f",
    "bash -c 'git status; rm -rf t'",
    "sh -c 'ls'",
    "cd /tmp",
];
const OPERATORS: &[&str] = &[" && ", " || ", "; ", " | ", "\n"];
const HOSTILE: &[&str] = &["$(rm -rf t)", "> ~/.bashrc", "$HOME", "{ x; }", "# c"];
const RULES: &[&str] = &[
    "Bash",
    "Bash(*)",
    "Bash(git:*)",
    "Bash(git status)",
    "Bash(git log:*)",
    "Bash(git reset --hard:*)",
    "Bash(git reset:*)",
    "Bash(git push --force:*)",
    "Bash(git push:*)",
    "Bash(git clean -f:*)",
    "Bash(git checkout --force:*)",
    "Bash(rm:*)",
    "Bash(rm -rf:*)",
    "Bash(rm -r -f:*)",
    "Bash(ls:*)",
    "Bash(cat:*)",
    "Bash(find:*)",
    "Bash(xargs:*)",
    "Bash(awk:*)",
    "Bash(bash:*)",
    "Bash(sudo:*)",
    "Bash(cd /tmp && ls)",
    "Bash(cd:*)",
];

fn command() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(
            (
                prop::sample::select(PREFIXES),
                prop::sample::select(SEGMENTS),
                prop::sample::select(OPERATORS),
            ),
            1..4,
        ),
        prop::option::weighted(0.1, prop::sample::select(HOSTILE)),
        prop::option::weighted(0.15, prop::sample::select(&["bash -c", "sudo sh -c"][..])),
    )
        .prop_map(|(parts, hostile, launcher)| {
            let mut out = String::new();
            for (at, (prefix, segment, op)) in parts.iter().enumerate() {
                if at > 0 {
                    out.push_str(op);
                }
                out.push_str(prefix);
                out.push_str(segment);
            }
            if let Some(hostile) = hostile {
                out.push(' ');
                out.push_str(hostile);
            }
            match launcher {
                Some(launcher) => format!("{launcher} '{}'", out.replace('\'', "'\\''")),
                None => out,
            }
        })
}

fn rules() -> impl Strategy<Value = Vec<(Effect, String)>> {
    prop::collection::vec(
        (
            prop::sample::select(&[Effect::Allow, Effect::Allow, Effect::Ask, Effect::Deny][..]),
            prop::sample::select(RULES),
        )
            .prop_map(|(effect, rule)| (effect, rule.to_owned())),
        1..7,
    )
}

fn config(cases: u32) -> Config {
    seal_test_support::no_persistence(cases)
}

#[test]
fn explanation_agrees_with_the_evaluation() {
    let mut runner = TestRunner::new(config(2048));
    let result = runner.run(&(rules(), command()), agrees(read_off));
    if let Err(error) = result {
        panic!("{error}");
    }
    // The cases reach every outcome, and deny through a model and through a payload.
    let seen = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let mut runner = TestRunner::new(config(2048));
    let result = runner.run(&(rules(), command()), |(rules, command)| {
        let set = set_of(&rules);
        let explained = set.explain("Bash", Subject::Command(&command));
        let mut seen = seen.borrow_mut();
        seen.insert(format!("{:?}", explained.evaluation.effect()));
        for m in explained
            .segments
            .iter()
            .flat_map(|s| &s.forms)
            .flat_map(|f| &f.matches)
        {
            seen.insert(format!("{:?} {:?}", m.effect, m.by));
        }
        Ok(())
    });
    assert!(result.is_ok());
    let seen = seen.into_inner();
    for wanted in [
        "Some(Deny)",
        "Some(Ask)",
        "Some(Allow)",
        "None",
        "Deny Model",
        "Deny Payload",
        "Ask Model",
    ] {
        assert!(seen.contains(wanted), "{wanted} never seen: {seen:?}");
    }
}

#[test]
fn control_dropping_model_matches_is_caught() {
    let mut runner = seal_test_support::seeded_by(5, 2048);
    let result = runner.run(&(rules(), command()), agrees(read_off_without_models));
    assert!(matches!(result, Err(TestError::Fail(..))), "{result:?}");
}

#[test]
fn guard_explanation_gives_first_what_the_check_gives() {
    let guard = DestructiveGuard::new()
        .with_workspace_root("/home/dev/project")
        .with_home_dir("/home/dev");
    let mut runner = TestRunner::new(config(1024));
    let result = runner.run(&command(), |command| {
        let explained = guard.explain_command(&command);
        let checked = guard.check_command(&command);
        prop_assert_eq!(explained.first(), checked.as_ref(), "`{}`", command);
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
    let explained = guard.explain_command(":(){ :|:& };:");
    assert_eq!(explained.text.unwrap().pattern.id, "fork-bomb");
}

/// The forms, model readings, payloads and matches of a few commands, as a table.
#[test]
fn explained_forms_table() {
    let set = set_of(&[
        (Effect::Allow, "Bash(git:*)".into()),
        (Effect::Allow, "Bash(find:*)".into()),
        (Effect::Deny, "Bash(git reset --hard:*)".into()),
        (Effect::Deny, "Bash(rm -rf:*)".into()),
    ]);
    let explained = set.explain(
        "Bash",
        Subject::Command("sudo git -C . reset --ha && find . -exec rm -rf {} +"),
    );
    assert_eq!(explained.evaluation.effect(), Some(Effect::Deny));
    let first = &explained.segments[0].forms;
    assert_eq!(first[0].kind, FormKind::Canonical);
    assert_eq!(first[0].words, ["sudo", "git", "-C", ".", "reset", "--ha"]);
    assert!(first[0].matches.is_empty(), "{:?}", first[0].matches);
    let git = first
        .iter()
        .find(|f| f.kind == FormKind::WrapperStripped)
        .unwrap();
    let model = git.model.as_ref().unwrap();
    assert_eq!(
        (model.program, &model.subcommand[..], &model.options[..]),
        ("git", &["reset".to_owned()][..], &["--hard".to_owned()][..])
    );
    let bys: Vec<_> = git
        .matches
        .iter()
        .map(|m| (m.text.as_str(), m.by))
        .collect();
    assert_eq!(bys, [("Bash(git reset --hard:*)", MatchedBy::Model)]);
    let find = &explained.segments[1].forms[0];
    let carried = find.carried.as_ref().unwrap();
    assert_eq!(
        carried.payload.as_deref().unwrap(),
        ["rm", "-rf", "{}"].map(String::from)
    );
    let bys: Vec<_> = find
        .matches
        .iter()
        .map(|m| (m.text.as_str(), m.by))
        .collect();
    assert_eq!(
        bys,
        [
            ("Bash(find:*)", MatchedBy::Words),
            ("Bash(rm -rf:*)", MatchedBy::Payload)
        ]
    );
    // An unanalysable command is explained by its reason, and asks.
    let explained = set.explain("Bash", Subject::Command("git log $(rm -rf t)"));
    assert_eq!(explained.unanalysable.unwrap().code, "command_substitution");
    assert!(explained.segments.is_empty());
    // A field that is not a command: the decision only.
    let explained = set.explain("Read", Subject::Path(".env"));
    assert!(explained.segments.is_empty() && explained.unanalysable.is_none());
}
