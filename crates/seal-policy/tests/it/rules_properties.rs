//! I11 as properties: a shell command is allowed by rules only if every segment (and every
//! launcher) is allowed and nothing in it is unanalysable; a deny matching any segment in any
//! normalized form denies. Plus agreement with a small reference evaluator written from the
//! spec. Each suite also runs against a whole-string prefix matcher (the classic bypass) through
//! a fixed-seed `TestRunner`, which must find a counterexample.

use proptest::prelude::{any, prop, prop_assert, prop_assert_eq, Strategy};
use proptest::strategy::ValueTree;
use proptest::test_runner::{TestCaseError, TestRunner};
use seal_parse::shell::{carried_code_in, readable, segment, Segments, ShellLimits};
use seal_policy::rules::{Effect, RuleSet, Subject};

/// One generated rule: effect and the specifier inside `Bash(...)`.
#[derive(Debug, Clone)]
struct GenRule {
    effect: Effect,
    spec: String,
}

type Evaluator = fn(&[GenRule], &str) -> Option<Effect>;

fn real(rules: &[GenRule], command: &str) -> Option<Effect> {
    let mut set = RuleSet::default();
    for rule in rules {
        set.push(rule.effect, &format!("Bash({})", rule.spec))
            .unwrap();
    }
    set.evaluate("Bash", Subject::Command(command)).effect()
}

/// The engine with the rules after 64 rules of another tool, so that none of them is among
/// the first 64 the engine indexes by tool, effect and program: the path without the index.
fn real_unindexed(rules: &[GenRule], command: &str) -> Option<Effect> {
    let mut set = RuleSet::default();
    for at in 0..64 {
        set.push(Effect::Allow, &format!("Read(pad{at}.txt)"))
            .unwrap();
    }
    for rule in rules {
        set.push(rule.effect, &format!("Bash({})", rule.spec))
            .unwrap();
    }
    set.evaluate("Bash", Subject::Command(command)).effect()
}

/// The classic bypass: rules matched as prefixes of the whole command string.
fn whole_string_prefix(rules: &[GenRule], command: &str) -> Option<Effect> {
    let fires = |rule: &GenRule| {
        let text = rule.spec.trim_end_matches(":*").trim_end_matches('*');
        command.starts_with(text.trim_end())
    };
    [Effect::Deny, Effect::Ask, Effect::Allow]
        .into_iter()
        .find(|&effect| rules.iter().any(|r| r.effect == effect && fires(r)))
}

// ---- reference matcher, written from the spec, deliberately naive ----

fn word_match(pattern: &[char], word: &[char]) -> bool {
    match pattern.split_first() {
        None => word.is_empty(),
        Some(('*', rest)) => (0..=word.len()).any(|i| word_match(rest, &word[i..])),
        Some((c, rest)) => word.first() == Some(c) && word_match(rest, &word[1..]),
    }
}

/// `None` for "every command", else (words, prefix).
fn reference_pattern(spec: &str) -> Option<(Vec<String>, bool)> {
    let (body, mut prefix) = match spec.strip_suffix(":*") {
        Some(body) => (body, true),
        None => (spec, false),
    };
    let mut words: Vec<String> = body
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect();
    if !prefix && words.last().map(String::as_str) == Some("*") {
        words.pop();
        prefix = true;
    }
    if spec == "*" || (prefix && words.is_empty()) {
        return None;
    }
    Some((words, prefix))
}

fn reference_fires(spec: &str, words: &[String]) -> bool {
    let Some((pattern, prefix)) = reference_pattern(spec) else {
        return true;
    };
    // Claude Code's reading: words joined by a boundary (U+0001, in no generated word) that a
    // pattern space matches, `*` spanning any characters and boundaries; a prefix pattern
    // also matches its words, a boundary, then anything.
    let text: Vec<char> = words.join("\u{1}").chars().collect();
    let body: Vec<char> = pattern.join("\u{1}").chars().collect();
    let mut longer = body.clone();
    longer.extend(['\u{1}', '*']);
    word_match(&body, &text) || (prefix && word_match(&longer, &text))
}

/// The command as written, split at spaces, quote characters dropped: what deny and ask also
/// match (a literal specifier such as `git commit -m "msg"` denies its command as Claude Code
/// reads it).
fn written(command: &str) -> Vec<String> {
    command
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| w.replace(['"', '\''], ""))
        .collect()
}

/// A specifier with an operator character also matches the command's characters without
/// spaces and quotes (`cd /tmp && ls` denies `cd /tmp&&ls`).
fn compact_fires(spec: &str, command: &str) -> bool {
    let Some((words, prefix)) = reference_pattern(spec) else {
        return true;
    };
    if !words
        .iter()
        .any(|w| w.contains(['&', '|', ';', '<', '>', '(', ')']))
    {
        return false;
    }
    let squeeze = |text: &str| -> Vec<char> {
        text.chars()
            .filter(|c| !c.is_whitespace() && !matches!(c, '"' | '\''))
            .collect()
    };
    let mut pattern = squeeze(&words.concat());
    if prefix {
        pattern.push('*');
    }
    word_match(&pattern, &squeeze(command))
}

/// Whether a deny or ask rule fires on the command as written.
fn text_fires(spec: &str, command: &str) -> bool {
    let unquoted = spec.replace(['"', '\''], "");
    reference_fires(&unquoted, &written(command)) || compact_fires(spec, command)
}

/// Every word list deny and ask look at: each form of each segment, each suffix of each
/// launcher (also with its first word's basename).
fn all_forms(segments: &Segments) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for seg in segments {
        for form in seg.forms().all() {
            out.push(form.to_words());
        }
        for launcher in seg.launchers() {
            for start in 0..launcher.len() {
                let words = launcher[start..].to_vec();
                if let Some(base) = words[0].rsplit_once('/').map(|(_, b)| b.to_owned()) {
                    if !base.is_empty() {
                        let mut based = words.clone();
                        based[0] = base;
                        out.push(based);
                    }
                }
                out.push(words);
            }
        }
    }
    out
}

/// The words allow looks at: each segment's canonical form and each launcher's words.
fn allow_forms(segments: &Segments) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for seg in segments {
        out.push(seg.forms().canonical().to_words());
        for launcher in seg.launchers() {
            out.push(launcher.to_vec());
        }
    }
    out
}

fn reference(rules: &[GenRule], command: &str) -> Option<Effect> {
    let of = |effect: Effect| rules.iter().filter(move |r| r.effect == effect);
    let segments = segment(command, &ShellLimits::default());
    // What can be read of an unanalysable command (the parser's pieces, spec/shell-segments.md
    // section 9): each piece's text and forms, as for an analysable command.
    let pieces = readable(command, &ShellLimits::default());
    let in_pieces = |spec: &str| {
        pieces.pieces().iter().any(|piece| {
            text_fires(spec, piece.text())
                || all_forms(piece.segments())
                    .iter()
                    .any(|f| reference_fires(spec, f))
        })
    };
    for effect in [Effect::Deny, Effect::Ask] {
        let hit = of(effect).any(|r| {
            text_fires(&r.spec, command)
                || match &segments {
                    Ok(segments) => all_forms(segments)
                        .iter()
                        .any(|f| reference_fires(&r.spec, f)),
                    Err(_) => reference_pattern(&r.spec).is_none() || in_pieces(&r.spec),
                }
        });
        if hit {
            return Some(effect);
        }
    }
    let Ok(segments) = segments else {
        return Some(Effect::Ask);
    };
    // A form whose program runs code its words or input carry: nothing allows it.
    if all_forms(&segments)
        .iter()
        .any(|f| carried_code_in(f.iter().map(String::as_str)).is_some())
    {
        return Some(Effect::Ask);
    }
    // No allow rule at all: rules have no opinion.
    of(Effect::Allow).next()?;
    let covered = allow_forms(&segments)
        .iter()
        .all(|f| of(Effect::Allow).any(|r| reference_fires(&r.spec, f)));
    covered.then_some(Effect::Allow)
}

// ---- the invariant ----

fn i11(evaluate: Evaluator, rules: &[GenRule], command: &str) -> Result<(), TestCaseError> {
    let got = evaluate(rules, command);
    let segments = segment(command, &ShellLimits::default());
    let denies = |segments: &Segments| {
        rules.iter().any(|r| {
            r.effect == Effect::Deny
                && all_forms(segments)
                    .iter()
                    .any(|f| reference_fires(&r.spec, f))
        })
    };
    if got == Some(Effect::Allow) {
        let Ok(segments) = &segments else {
            return Err(TestCaseError::fail(format!(
                "unanalysable `{command}` allowed"
            )));
        };
        for words in allow_forms(segments) {
            let allowed = rules
                .iter()
                .any(|r| r.effect == Effect::Allow && reference_fires(&r.spec, &words));
            prop_assert!(
                allowed,
                "`{command}` allowed but `{}` is not",
                words.join(" ")
            );
        }
        prop_assert!(
            !denies(segments),
            "`{command}` allowed though a deny matches a form"
        );
    }
    if let Ok(segments) = &segments {
        if denies(segments) {
            prop_assert_eq!(got, Some(Effect::Deny), "`{}`", command);
        }
    }
    Ok(())
}

fn agrees(evaluate: Evaluator, rules: &[GenRule], command: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        evaluate(rules, command),
        reference(rules, command),
        "`{}`",
        command
    );
    Ok(())
}

// ---- generators, including the hostile shapes ----

const PROGRAMS: &[&str] = &["git", "rm", "curl", "npm", "ls", "sh", "cat"];
const ARGS: &[&str] = &[
    "log",
    "status",
    "clean",
    "test",
    "-rf",
    "t",
    "x",
    "--oneline",
    "-fd",
    "a b",
    "it's",
];
const PREFIXES: &[&str] = &[
    "",
    "",
    "",
    "sudo ",
    "env X=1 ",
    "X=1 ",
    "nice -n 5 ",
    "timeout 5 ",
    "nohup ",
    "command ",
];
const OPERATORS: &[&str] = &[" && ", " || ", "; ", " | ", "\n", " & ", " |& "];
const HOSTILE: &[&str] = &[
    "$(rm -rf t)",
    "`rm -rf t`",
    "> ~/.bashrc",
    "$HOME",
    "$'\\t'",
    "r\u{217f}",
    "g\u{456}t",
    "\u{202e}x",
    "(x)",
    "{ x; }",
    "<<EOF",
    "a\u{a0}b",
    "\r",
    "# c",
    "eval",
    "$((1))",
];

fn quote(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./=".contains(c))
        && !word.is_empty()
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

fn segment_text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(PREFIXES),
        any::<bool>(),
        prop::sample::select(PROGRAMS),
        prop::collection::vec(prop::sample::select(ARGS), 0..4),
    )
        .prop_map(|(prefix, absolute, program, args)| {
            let program = if absolute {
                format!("/usr/bin/{program}")
            } else {
                program.to_owned()
            };
            let mut out = format!("{prefix}{program}");
            for arg in args {
                out.push(' ');
                out.push_str(&quote(arg));
            }
            out
        })
}

fn command() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((segment_text(), prop::sample::select(OPERATORS)), 1..4),
        prop::option::weighted(0.2, prop::sample::select(HOSTILE)),
        prop::option::weighted(
            0.2,
            prop::sample::select(&["bash -c", "sh -c", "sudo bash -c"][..]),
        ),
    )
        .prop_map(|(parts, hostile, launcher)| {
            let mut out = String::new();
            for (at, (text, op)) in parts.iter().enumerate() {
                if at > 0 {
                    out.push_str(op);
                }
                out.push_str(text);
            }
            if let Some(hostile) = hostile {
                out.push(' ');
                out.push_str(hostile);
            }
            match launcher {
                Some(launcher) => format!("{launcher} {}", quote(&out)),
                None => out,
            }
        })
}

fn rule() -> impl Strategy<Value = GenRule> {
    (
        prop::sample::select(&[Effect::Allow, Effect::Allow, Effect::Ask, Effect::Deny][..]),
        prop::sample::select(PROGRAMS),
        prop::collection::vec(
            prop::sample::select(
                &[
                    "log", "status", "clean", "test", "-rf", "*", "-*", "\"t\"", "&&", "x;",
                ][..],
            ),
            0..3,
        ),
        0..4u8,
    )
        .prop_map(|(effect, program, args, shape)| {
            let mut spec = std::iter::once(program)
                .chain(args)
                .collect::<Vec<_>>()
                .join(" ");
            match shape {
                0 => spec.push_str(":*"),
                1 => spec.push_str(" *"),
                2 => {}
                _ => {
                    spec = if effect == Effect::Allow {
                        "*".to_owned()
                    } else {
                        spec + ":*"
                    }
                }
            }
            GenRule { effect, spec }
        })
}

fn case() -> impl Strategy<Value = (Vec<GenRule>, String)> {
    (prop::collection::vec(rule(), 1..6), command())
}

fn runner(cases: u32) -> TestRunner {
    seal_test_support::seeded(cases)
}

type Property = fn(Evaluator, &[GenRule], &str) -> Result<(), TestCaseError>;

fn run(property: Property, evaluate: Evaluator, cases: u32) -> Result<(), String> {
    runner(cases)
        .run(&case(), |(rules, command)| {
            property(evaluate, &rules, &command)
        })
        .map_err(|e| e.to_string())
}

#[test]
fn i11_holds_for_the_engine() {
    run(i11, real, 2048).unwrap();
}

#[test]
fn the_engine_agrees_with_the_reference_evaluator() {
    run(agrees, real, 2048).unwrap();
}

#[test]
fn the_engine_without_its_index_agrees_with_the_reference_evaluator() {
    run(agrees, real_unindexed, 1024).unwrap();
}

#[test]
fn negative_control_whole_string_prefix_breaks_i11() {
    let found = run(i11, whole_string_prefix, 2048);
    assert!(
        found.is_err(),
        "the I11 suite did not catch whole-string prefix matching"
    );
}

#[test]
fn negative_control_whole_string_prefix_disagrees_with_the_reference() {
    assert!(run(agrees, whole_string_prefix, 2048).is_err());
}

#[test]
fn generators_reach_every_outcome() {
    let mut seen = std::collections::BTreeSet::new();
    let mut unanalysable = 0;
    let mut runner = runner(1);
    for _ in 0..2000 {
        let (rules, command) = case().new_tree(&mut runner).unwrap().current();
        seen.insert(format!("{:?}", real(&rules, &command)));
        if segment(&command, &ShellLimits::default()).is_err() {
            unanalysable += 1;
        }
    }
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(unanalysable > 100, "{unanalysable}");
}
