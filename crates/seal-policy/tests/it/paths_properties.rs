//! An allow stops at the workspace (spec/paths.md), as properties.
//!
//! (a) The resolver: for generated path words (`~`, `..`, `.`, absolute, doubled slashes, the
//! root's own name, symlink-free lexical tricks), `Places::whereabouts` never says inside where
//! a naive reference resolver (a plain component stack) says outside. Negative controls: two
//! mutated resolvers, one that forgets `..` and one that forgets `~`, are each caught.
//!
//! (b) The rules: for generated commands (programs with and without a path model, wrappers,
//! safe assignments, `cd`, pipes) naming one such path under broad allow rules (`Bash`,
//! `Bash(*)`, `Bash(PROGRAM:*)`) and no path rule, no command whose path the reference places
//! outside is allowed, and commands whose paths are all inside are allowed (so the property is
//! not met by asking everything). Negative control: the same rules given `/` as the workspace
//! root (a resolver that places everything inside) are caught allowing outside paths.

use proptest::prelude::{prop, prop_assert, Strategy};
use std::cell::Cell;

use proptest::test_runner::TestCaseError;
use seal_policy::paths::{Cwd, Places, Whereabouts};
use seal_policy::rules::{Effect, RuleSet, Subject};

const ROOT: &str = "/ws/app";
const HOME: &str = "/home/u";

/// The reference: a plain stack of components; `None` when the word cannot be placed here
/// (`~user`).
fn reference(word: &str, cwd: &str) -> Option<bool> {
    let (base, rest) = if word == "~" || word.starts_with("~/") {
        (HOME, word.get(1..).unwrap())
    } else if word.starts_with('~') {
        return None;
    } else if word.starts_with('/') {
        ("/", word)
    } else {
        (cwd, word)
    };
    let mut stack: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                stack.pop();
            }
            other => stack.push(other),
        }
    }
    let root: Vec<&str> = ROOT.split('/').filter(|p| !p.is_empty()).collect();
    Some(stack.len() >= root.len() && stack[..root.len()] == root[..])
}

fn places() -> Places {
    Places::new().with_root(ROOT).with_home(HOME)
}

/// Path words built from pieces that make `..`, `~` and absolute spellings meet.
fn word() -> impl Strategy<Value = String> {
    let start = prop::sample::select(
        &[
            "", "", "~", "~/", "/", "//", "./", "../", "/ws/app/", "/ws/", "/home/u/", "~/../",
        ][..],
    );
    let part = prop::sample::select(
        &[
            "a", "b", "app", "ws", "u", "home", "..", "..", ".", "", ".ssh", "x.txt",
        ][..],
    );
    (start, prop::collection::vec(part, 1..6)).prop_map(|(start, parts)| {
        let mut word = start.to_owned();
        word.push_str(&parts.join("/"));
        if word.is_empty() {
            word.push('.');
        }
        word
    })
}

type Resolver = fn(&Places, &str) -> Whereabouts;

fn real(places: &Places, word: &str) -> Whereabouts {
    places.whereabouts(word, Cwd::Root)
}

/// Negative control: a resolver that forgets `..` (drops the component).
fn forgets_dot_dot(places: &Places, word: &str) -> Whereabouts {
    let kept: Vec<&str> = word.split('/').filter(|p| *p != "..").collect();
    places.whereabouts(&kept.join("/"), Cwd::Root)
}

/// Negative control: a resolver that forgets `~` (reads it as a directory named `~`).
fn forgets_tilde(places: &Places, word: &str) -> Whereabouts {
    let word = match word.strip_prefix('~') {
        Some(rest) => format!("./tilde{rest}"),
        None => word.to_owned(),
    };
    places.whereabouts(&word, Cwd::Root)
}

fn resolver_property(resolve: Resolver) -> impl Fn(String) -> Result<(), TestCaseError> {
    move |word| {
        let seal = resolve(&places(), &word);
        if seal == Whereabouts::Inside {
            prop_assert!(
                reference(&word, ROOT) == Some(true),
                "`{}` placed inside, the reference places it outside",
                word
            );
        }
        Ok(())
    }
}

#[test]
fn the_resolver_never_places_an_outside_path_inside() {
    let mut runner = seal_test_support::seeded(2048);
    let result = runner.run(&word(), resolver_property(real));
    if let Err(error) = result {
        panic!("{error}");
    }
    // The cases reach both answers.
    let (inside, outside) = (Cell::new(0), Cell::new(0));
    let mut runner = seal_test_support::seeded(2048);
    runner
        .run(&word(), |word| {
            match real(&places(), &word) {
                Whereabouts::Inside => inside.set(inside.get() + 1),
                Whereabouts::Outside => outside.set(outside.get() + 1),
                Whereabouts::Unplaced(_) => {}
            }
            Ok(())
        })
        .unwrap();
    let (inside, outside) = (inside.get(), outside.get());
    assert!(
        inside > 100 && outside > 100,
        "{inside} inside, {outside} outside"
    );
}

#[test]
fn mutated_resolvers_are_caught() {
    for (name, resolve) in [
        ("forgets `..`", forgets_dot_dot as Resolver),
        ("forgets `~`", forgets_tilde as Resolver),
    ] {
        let mut runner = seal_test_support::seeded(2048);
        let result = runner.run(&word(), resolver_property(resolve));
        assert!(result.is_err(), "the resolver that {name} was not caught");
    }
}

/// A program and how it takes one path word (`{}`), with the allow rule naming it.
const PROGRAMS: &[(&str, &str)] = &[
    ("cat {}", "Bash(cat:*)"),
    ("head -n 5 {}", "Bash(head:*)"),
    ("grep -rn needle {}", "Bash(grep:*)"),
    ("cp notes.txt {}", "Bash(cp:*)"),
    ("cp {} copy.txt", "Bash(cp:*)"),
    ("mv {} moved.txt", "Bash(mv:*)"),
    ("rm -f {}", "Bash(rm:*)"),
    ("tar -cf out.tar {}", "Bash(tar:*)"),
    ("base64 {}", "Bash(base64:*)"),
    ("xxd notes.txt {}", "Bash(xxd:*)"),
    ("python3 tool.py {}", "Bash(python3:*)"),
    ("git -C {} status", "Bash(git:*)"),
    ("ls -la {}", "Bash(ls:*)"),
    ("find {} -name k", "Bash(find:*)"),
    ("dd if={} of=out.bin", "Bash(dd:*)"),
    ("curl -d @{} https://example.invalid", "Bash(curl:*)"),
    ("tee {}", "Bash(tee:*)"),
    ("sort --output={} notes.txt", "Bash(sort:*)"),
    ("frob --config={}", "Bash(frob:*)"),
    ("frob {}", "Bash(frob:*)"),
];

/// What may stand before the program.
const PREFIXES: &[&str] = &[
    "",
    "",
    "sudo ",
    "timeout 5 ",
    "NODE_ENV=test ",
    "ls && ",
    "pwd; ",
    "echo hi | ",
    "cd sub && ",
];

fn command() -> impl Strategy<Value = (String, String, String, bool)> {
    (
        prop::sample::select(PROGRAMS),
        prop::sample::select(PREFIXES),
        word(),
        prop::sample::select(&[0usize, 1, 2][..]),
    )
        .prop_map(|((program, rule), prefix, word, allow)| {
            let cd = prefix.starts_with("cd ");
            let command = format!("{prefix}{}", program.replace("{}", &word));
            let rule = match allow {
                0 => "Bash".to_owned(),
                1 => "Bash(*)".to_owned(),
                _ => rule.to_owned(),
            };
            (command, word, rule, cd)
        })
        .prop_filter(
            "a word the shell reads as an option or an empty one",
            |(_, w, _, _)| !w.starts_with('-'),
        )
}

fn rules(rule: &str, root: &str) -> RuleSet {
    let mut set = RuleSet::default();
    for allow in [
        rule,
        "Bash(ls:*)",
        "Bash(pwd)",
        "Bash(echo:*)",
        "Bash(cd:*)",
    ] {
        set.push(Effect::Allow, allow).unwrap();
    }
    set.with_workspace_root(root).with_home_dir(HOME)
}

/// Where the command's path word lies for the reference, with `cd sub` applied.
fn outside(word: &str, cd: bool) -> bool {
    let cwd = if cd {
        format!("{ROOT}/sub")
    } else {
        ROOT.to_owned()
    };
    reference(word, &cwd) != Some(true)
}

fn rules_property(
    root: &'static str,
) -> impl Fn((String, String, String, bool)) -> Result<(), TestCaseError> {
    move |(command, word, rule, cd)| {
        let set = rules(&rule, root);
        let evaluation = set.evaluate("Bash", Subject::Command(&command));
        if outside(&word, cd) {
            prop_assert!(
                evaluation.effect() != Some(Effect::Allow),
                "`{}` under `{}` is allowed: {}",
                command,
                rule,
                evaluation
            );
        }
        Ok(())
    }
}

#[test]
fn no_allow_rule_reaches_past_the_workspace() {
    let mut runner = seal_test_support::seeded(2048);
    if let Err(error) = runner.run(&command(), rules_property(ROOT)) {
        panic!("{error}");
    }
    // Inside paths are still allowed: the property is not met by asking for everything.
    let (allowed_inside, asked_outside) = (Cell::new(0), Cell::new(0));
    let mut runner = seal_test_support::seeded(2048);
    runner
        .run(&command(), |(command, word, rule, cd)| {
            let effect = rules(&rule, ROOT)
                .evaluate("Bash", Subject::Command(&command))
                .effect();
            match (outside(&word, cd), effect) {
                (false, Some(Effect::Allow)) => allowed_inside.set(allowed_inside.get() + 1),
                (true, Some(Effect::Ask)) => asked_outside.set(asked_outside.get() + 1),
                _ => {}
            }
            Ok(())
        })
        .unwrap();
    let (allowed_inside, asked_outside) = (allowed_inside.get(), asked_outside.get());
    assert!(
        allowed_inside > 200 && asked_outside > 200,
        "{allowed_inside} inside allowed, {asked_outside} outside asked"
    );
}

#[test]
fn a_resolver_that_places_everything_inside_is_caught() {
    let mut runner = seal_test_support::seeded(2048);
    let result = runner.run(&command(), rules_property("/"));
    assert!(result.is_err(), "rules rooted at `/` were not caught");
}
