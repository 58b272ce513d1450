#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
//! Differential test against real shells: commands built from randomly quoted words (bare,
//! backslash-escaped, single-quoted, double-quoted, pieces joined into one word, continuations
//! between words) are run by `bash -c` and `dash -c` with a function `f` that prints its
//! arguments; the words the segmenter reports must be exactly the arguments the shell passed.
//! Negative control: a segmenter that drops every backslash is caught by the same oracle.
//! Skipped (with a message) where a shell is not installed.

use std::process::Command;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

use seal_parse::shell::{segment, ShellLimits};

/// Prints each argument followed by \002, then \001 after the last.
const PRELUDE: &str =
    "f() { for a in \"$@\"; do printf '%s\\002' \"$a\"; done; printf '\\001'; }\n";

#[derive(Debug, Clone, Copy)]
enum Style {
    Bare,
    Backslash,
    Single,
    Double,
    /// Double quotes where a backslash before a letter or digit stays in the value.
    DoubleKeptBackslash,
}

fn piece() -> impl Strategy<Value = (Style, String)> {
    let chars = prop_oneof![
        6 => proptest::char::range(' ', '~'),
        1 => proptest::sample::select(vec!['\n', '\t', '\u{e9}', '\u{433}']),
    ];
    (
        proptest::sample::select(vec![
            Style::Bare,
            Style::Backslash,
            Style::Single,
            Style::Double,
            Style::DoubleKeptBackslash,
        ]),
        proptest::collection::vec(chars, 1..8).prop_map(|c| c.into_iter().collect::<String>()),
    )
        .prop_map(|(style, text)| {
            // Adjust the text to what the style can carry.
            let text: String = match style {
                Style::Bare => text
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || "-_./:@%+,".contains(*c))
                    .collect(),
                Style::Backslash => text.chars().filter(|&c| c != '\n').collect(),
                Style::Single => text.chars().filter(|&c| c != '\'').collect(),
                Style::Double => text,
                Style::DoubleKeptBackslash => text
                    .chars()
                    .filter(|c| !matches!(c, '"' | '$' | '`' | '\\'))
                    .flat_map(|c| {
                        if c.is_ascii_alphanumeric() {
                            vec!['\\', c]
                        } else {
                            vec![c]
                        }
                    })
                    .collect(),
            };
            (style, text)
        })
}

fn render_piece(style: Style, text: &str) -> String {
    match style {
        Style::Bare => text.to_owned(),
        Style::Backslash => text.chars().flat_map(|c| ['\\', c]).collect(),
        Style::Single => format!("'{text}'"),
        Style::Double => {
            let mut out = String::from("\"");
            for c in text.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
            out
        }
        Style::DoubleKeptBackslash => format!("\"{text}\""),
    }
}

type Word = Vec<(Style, String)>;

/// Segments of words, operators to cycle through, continuations to cycle through.
type Plan = (Vec<Vec<Word>>, Vec<&'static str>, Vec<bool>);

fn command() -> impl Strategy<Value = Plan> {
    let word = proptest::collection::vec(piece(), 1..4);
    let segment = proptest::collection::vec(word, 0..4);
    (
        proptest::collection::vec(segment, 1..4),
        proptest::collection::vec(proptest::sample::select(vec![";", "\n", "&&", " ;\n"]), 4),
        proptest::collection::vec(any::<bool>(), 16),
    )
}

/// The command text, and the arguments each `f` receives.
fn build(plan: &Plan) -> (String, Vec<Vec<String>>) {
    let (segments, operators, continuations) = plan;
    let mut text = String::new();
    let mut expected = Vec::new();
    let mut k = 0;
    for (at, words) in segments.iter().enumerate() {
        text.push('f');
        let mut args = Vec::new();
        for word in words {
            let value: String = word.iter().map(|(_, t)| t.as_str()).collect();
            let rendered: String = word.iter().map(|(s, t)| render_piece(*s, t)).collect();
            if rendered.is_empty() {
                continue;
            }
            text.push_str(if continuations[k % continuations.len()] {
                " \\\n "
            } else {
                " "
            });
            k += 1;
            text.push_str(&rendered);
            args.push(value);
        }
        expected.push(args);
        if at + 1 < segments.len() {
            text.push(' ');
            text.push_str(operators[at % operators.len()]);
            text.push(' ');
        }
    }
    (text, expected)
}

fn run_shell(shell: &str, text: &str) -> Option<Vec<Vec<String>>> {
    let script = format!("{PRELUDE}{text}\n");
    let output = Command::new(shell).arg("-c").arg(&script).output().ok()?;
    let stdout = String::from_utf8(output.stdout).unwrap();
    Some(
        stdout
            .split_terminator('\u{1}')
            .map(|call| call.split_terminator('\u{2}').map(str::to_owned).collect())
            .collect(),
    )
}

fn shells() -> Vec<&'static str> {
    let found: Vec<&str> = ["bash", "dash"]
        .into_iter()
        .filter(|shell| Command::new(shell).arg("-c").arg("true").output().is_ok())
        .collect();
    if found.is_empty() {
        eprintln!("no bash or dash installed: shell oracle skipped");
    }
    found
}

fn segmenter_args(text: &str) -> Vec<Vec<String>> {
    let segments = segment(text, &ShellLimits::default())
        .unwrap_or_else(|e| panic!("{text:?} should be analysable: {e}"));
    segments
        .iter()
        .map(|s| {
            assert_eq!(s.words()[0], "f");
            s.words()[1..].to_vec()
        })
        .collect()
}

fn broken_args(text: &str) -> Vec<Vec<String>> {
    segmenter_args(text)
        .into_iter()
        .map(|args| args.into_iter().map(|a| a.replace('\\', "")).collect())
        .collect()
}

fn agrees(
    shells: Vec<&'static str>,
    args: fn(&str) -> Vec<Vec<String>>,
) -> impl Fn(Plan) -> Result<(), TestCaseError> {
    move |plan| {
        let (text, expected) = build(&plan);
        let ours = args(&text);
        prop_assert_eq!(&ours, &expected, "{:?}", text);
        for shell in &shells {
            let theirs = run_shell(shell, &text).unwrap();
            prop_assert_eq!(&ours, &theirs, "{} on {:?}", shell, text);
        }
        Ok(())
    }
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

#[test]
fn words_match_what_real_shells_pass() {
    let shells = shells();
    let mut runner = TestRunner::new(config(256));
    let result = runner.run(&command(), agrees(shells, segmenter_args));
    if let Err(error) = result {
        panic!("{error}");
    }
}

#[test]
fn control_dropping_backslashes_is_caught() {
    let shells = shells();
    if shells.is_empty() {
        return;
    }
    let mut runner = TestRunner::new_with_rng(
        config(256),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let result = runner.run(&command(), agrees(shells, broken_args));
    assert!(matches!(result, Err(TestError::Fail(..))), "{result:?}");
}
