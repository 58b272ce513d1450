//! Properties of the segmenter, each with a negative control that must be caught:
//!
//! - P1: any text (hostile characters and shell fragments) segments without panic, and the fuzz
//!   property holds (spans, forms, re-quoting);
//! - P2: plain segments joined by operators, each word quoted by this file's own quoting,
//!   segment back to exactly those words and operators. Controls: a splitter that ignores
//!   quotes, and one that only splits on `&&`;
//! - P3: a command behind any chain of wrappers has that command as its normalized form.
//!   Control: taking the basename form (no wrapper stripping) as the normalized form.

use proptest::prelude::*;
use proptest::test_runner::{TestError, TestRunner};

use seal_parse::shell::fuzz_check::shell_segments;
use seal_parse::shell::{segment, Operator, ShellLimits};

/// Characters a hostile command is made of, beyond what proptest's default strings produce.
const HOSTILE: &[&str] = &[
    "a",
    "rm",
    "git",
    " ",
    "\t",
    "\n",
    "\r",
    ";",
    "&",
    "&&",
    "|",
    "||",
    "|&",
    "'",
    "\"",
    "\\",
    "\\\n",
    "$",
    "$(",
    "`",
    "(",
    ")",
    "{",
    "}",
    "<",
    ">",
    "#",
    "!",
    "~",
    "=",
    "*",
    "?",
    "[",
    "-c",
    "-",
    "--",
    "/",
    "./",
    "bash -c ",
    "sh -c '",
    "sudo ",
    "env X=1 ",
    "timeout 5 ",
    "nice -n 1 ",
    "xargs ",
    "command -v ",
    "X=1 ",
    "\u{0}",
    "\u{1b}",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{200b}",
    "\u{202e}",
    "\u{2066}",
    "\u{feff}",
    "\u{e0041}",
    "\u{fe0f}",
    "\u{3000}",
    "\u{433}",
    "\u{217f}",
    "\u{ff1b}",
    "\u{ff06}",
    "\u{e9}",
    "\u{d7ff}",
    "\u{e000}",
    "\u{fffd}",
    "\u{10ffff}",
    "\u{1f600}",
];

fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(proptest::sample::select(HOSTILE), 0..48)
            .prop_map(|parts| parts.concat()),
        any::<String>(),
    ]
}

fn seeded(cases: u32) -> TestRunner {
    seal_test_support::seeded(cases)
}

// ---------------------------------------------------------------- P1

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2048))]

    #[test]
    fn p1_any_text_segments_without_panic(text in hostile_text()) {
        let result = segment(&text, &ShellLimits::default());
        if let Err(error) = &result {
            prop_assert!(error.offset <= text.len());
        }
        prop_assert_eq!(shell_segments(text.as_bytes()), Ok(()));
    }
}

#[test]
fn p1_control_a_broken_requoting_is_caught() {
    // The fuzz property re-segments `Segment::quoted`; a quoting that leaves words bare must
    // break it on the hostile corpus.
    let result = seeded(512).run(&hostile_text(), |text| {
        let Ok(segments) = segment(&text, &ShellLimits::default()) else {
            return Ok(());
        };
        for one in &segments {
            let bare = one.words().join(" ");
            let back = segment(&bare, &ShellLimits::default());
            let same = back.is_ok_and(|b| b.len() == 1 && b.as_slice()[0].words() == one.words());
            prop_assert!(same, "{:?}", bare);
        }
        Ok(())
    });
    assert!(matches!(result, Err(TestError::Fail(..))), "{result:?}");
}

// ---------------------------------------------------------------- P2

const PROGRAMS: &[&str] = &[
    "git",
    "ls",
    "cat",
    "cargo",
    "echo",
    "make",
    "/usr/bin/grep",
    "./x",
];

const OPERATORS: &[Operator] = &[
    Operator::And,
    Operator::Or,
    Operator::Semicolon,
    Operator::Pipe,
    Operator::PipeAll,
    Operator::Background,
    Operator::Newline,
];

/// Argument characters: anything that may appear in a command when quoted.
fn argument() -> impl Strategy<Value = String> {
    let chars = prop_oneof![
        4 => proptest::char::range(' ', '~'),
        1 => proptest::sample::select(vec!['\n', '\t', '\u{e9}', '\u{433}', '\u{ff1b}', '\u{1f600}']),
    ];
    proptest::collection::vec(chars, 0..12).prop_map(|c| c.into_iter().collect())
}

type Plan = Vec<(Vec<String>, Operator)>;

fn plan() -> impl Strategy<Value = (Plan, Option<Operator>)> {
    let one = (
        proptest::sample::select(PROGRAMS),
        proptest::collection::vec(argument(), 0..5),
        proptest::sample::select(OPERATORS),
    )
        .prop_map(|(program, args, op)| {
            let mut words = vec![program.to_owned()];
            words.extend(args);
            (words, op)
        });
    (
        proptest::collection::vec(one, 1..6),
        proptest::option::of(proptest::sample::select(vec![
            Operator::Semicolon,
            Operator::Background,
            Operator::Newline,
        ])),
    )
}

/// This file's own quoting: double quotes, with `\` before `"`, `\`, `$` and `` ` ``.
fn test_quote(word: &str) -> String {
    let mut out = String::from("\"");
    for c in word.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Renders the plan: the last segment takes `trailing` (or nothing) instead of its operator.
fn render(plan: &Plan, trailing: Option<Operator>) -> String {
    let mut out = String::new();
    for (at, (words, op)) in plan.iter().enumerate() {
        let quoted: Vec<String> = words.iter().map(|w| test_quote(w)).collect();
        out.push_str(&quoted.join(" "));
        let op = if at + 1 == plan.len() {
            trailing
        } else {
            Some(*op)
        };
        if let Some(op) = op {
            out.push(' ');
            out.push_str(op.as_str());
            out.push(' ');
        }
    }
    out
}

fn expected(plan: &Plan, trailing: Option<Operator>) -> Vec<(Vec<String>, Option<Operator>)> {
    plan.iter()
        .enumerate()
        .map(|(at, (words, op))| {
            let op = if at + 1 == plan.len() {
                trailing
            } else {
                Some(*op)
            };
            (words.clone(), op)
        })
        .collect()
}

type Splitter = fn(&str) -> Option<Vec<(Vec<String>, Option<Operator>)>>;

fn real(command: &str) -> Option<Vec<(Vec<String>, Option<Operator>)>> {
    let segments = segment(command, &ShellLimits::default()).ok()?;
    Some(
        segments
            .iter()
            .map(|s| (s.words().to_vec(), s.operator()))
            .collect(),
    )
}

/// Negative control: splits on operators and spaces wherever they are, then drops quotes.
fn quote_blind(command: &str) -> Option<Vec<(Vec<String>, Option<Operator>)>> {
    let mut out = Vec::new();
    let mut rest = command;
    while !rest.is_empty() {
        let found = ["&&", "||", "|&", ";", "|", "&", "\n"]
            .iter()
            .filter_map(|op| rest.find(op).map(|at| (at, *op)))
            .min_by_key(|&(at, op)| (at, std::cmp::Reverse(op.len())));
        let (head, op, tail) = match found {
            Some((at, op)) => (&rest[..at], Some(op), &rest[at + op.len()..]),
            None => (rest, None, ""),
        };
        let words: Vec<String> = head
            .split([' ', '\t'])
            .filter(|w| !w.is_empty())
            .map(|w| w.replace(['"', '\\'], ""))
            .collect();
        let op = op.map(|op| *OPERATORS.iter().find(|o| o.as_str() == op).unwrap());
        if !words.is_empty() {
            out.push((words, op));
        }
        rest = tail;
    }
    Some(out)
}

/// Negative control: quote-aware words (by the real segmenter) but only `&&` splits.
fn and_only(command: &str) -> Option<Vec<(Vec<String>, Option<Operator>)>> {
    let mut out = Vec::new();
    let pieces: Vec<&str> = command.split("&&").collect();
    for (at, piece) in pieces.iter().enumerate() {
        let words = segment(piece, &ShellLimits::default())
            .ok()
            .map(|s| s.iter().flat_map(|s| s.words().to_vec()).collect())
            .unwrap_or_default();
        let op = (at + 1 < pieces.len()).then_some(Operator::And);
        out.push((words, op));
    }
    Some(out)
}

fn round_trip(split: Splitter) -> impl Fn((Plan, Option<Operator>)) -> Result<(), TestCaseError> {
    move |(plan, trailing)| {
        let command = render(&plan, trailing);
        prop_assert_eq!(
            split(&command),
            Some(expected(&plan, trailing)),
            "{:?}",
            command
        );
        Ok(())
    }
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(1024))]

    #[test]
    fn p2_joined_segments_round_trip(case in plan()) {
        round_trip(real)(case)?;
    }
}

#[test]
fn p2_controls_are_caught() {
    for (name, split) in [
        ("quote_blind", quote_blind as Splitter),
        ("and_only", and_only),
    ] {
        let result = seeded(256).run(&plan(), round_trip(split));
        assert!(
            matches!(result, Err(TestError::Fail(..))),
            "{name}: {result:?}"
        );
    }
}

#[test]
fn p2_spans_cover_the_quoted_words() {
    let command = "git \"log\" && ls 'a b' ;";
    let segments = segment(command, &ShellLimits::default()).unwrap();
    let spans: Vec<&str> = segments
        .iter()
        .map(|s| s.span().of(command).unwrap())
        .collect();
    assert_eq!(spans, ["git \"log\"", "ls 'a b'"]);
}

// ---------------------------------------------------------------- P3

const WRAPPER_PREFIXES: &[&str] = &[
    "sudo",
    "sudo -u root",
    "sudo -E -H",
    "/usr/bin/sudo -n",
    "doas",
    "env",
    "env -i X=1",
    "env -u HOME --",
    "/usr/bin/env Y=2",
    "nice",
    "nice -n 5",
    "nice -5",
    "timeout 5",
    "timeout -k 1 2.5m",
    "nohup",
    "command",
    "command -p",
    "builtin",
    "exec -a x",
    "time -p",
    "stdbuf -oL -e 0",
    "xargs -0 -n 1",
    "ionice -c 3",
    "setsid -w",
    "unbuffer",
    "caffeinate -i",
];

/// Wrapper chains, with a leading shell assignment half of the time.
fn wrapped() -> impl Strategy<Value = (Vec<&'static str>, Vec<String>)> {
    let inner = (
        proptest::sample::select(vec!["rm", "/bin/rm", "./rm", "git", "curl"]),
        proptest::collection::vec("[a-z-]{1,6}", 0..3),
    )
        .prop_map(|(program, args)| {
            let mut words = vec![program.to_owned()];
            words.extend(args);
            words
        });
    (
        any::<bool>(),
        proptest::collection::vec(proptest::sample::select(WRAPPER_PREFIXES), 0..5),
        inner,
    )
        .prop_map(|(assign, mut prefixes, inner)| {
            if assign {
                prefixes.insert(0, "X=1");
            }
            (prefixes, inner)
        })
}

fn check_wrapped(
    normalized: fn(&seal_parse::shell::Segment) -> Vec<String>,
) -> impl Fn((Vec<&'static str>, Vec<String>)) -> Result<(), TestCaseError> {
    move |(prefixes, inner)| {
        let mut command = prefixes.join(" ");
        command.push(' ');
        command.push_str(&inner.join(" "));
        let segments = segment(&command, &ShellLimits::default())
            .map_err(|e| TestCaseError::fail(format!("{command}: {e}")))?;
        prop_assert_eq!(segments.len(), 1);
        let mut want = inner.clone();
        want[0] = want[0].rsplit('/').next().unwrap().to_owned();
        prop_assert_eq!(normalized(&segments.as_slice()[0]), want, "{}", command);
        Ok(())
    }
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(1024))]

    #[test]
    fn p3_wrappers_strip_to_the_inner_command(case in wrapped()) {
        check_wrapped(|s| s.forms().normalized().to_words())(case)?;
    }
}

#[test]
fn p3_control_without_wrapper_stripping_is_caught() {
    let result = seeded(256).run(
        &wrapped(),
        check_wrapped(|s| s.forms().basename().to_words()),
    );
    assert!(matches!(result, Err(TestError::Fail(..))), "{result:?}");
}
