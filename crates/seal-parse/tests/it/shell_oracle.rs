//! Differential test against real shells: commands built from randomly quoted words (bare,
//! backslash-escaped, single-quoted, double-quoted, pieces joined into one word, continuations
//! between words) are run by `bash -c` and `dash -c` with a function `f` that prints its
//! arguments; the words the segmenter reports must be exactly the arguments the shell passed.
//! The words also include those the program models and code checks read: a lone `{}`, find's
//! terminator (`\\;`, `';'`, `+`), `:::`, `--`, `-rf` / `-fr` clusters, `--opt=value`,
//! `-Cdir`, refspecs (`+refs/heads/x`, `:branch`), as whole words and as pieces of words.
//! Negative control: a segmenter that drops every backslash is caught by the same oracle.
//! Braces the segmenter refuses (`{a,b}`, `x{}`, a lone `{`) are never part of an accepted
//! command: a second property checks that every command holding one is refused, with a
//! brace reason at the offset of a brace, and gives no segments at all.
//! Skipped (with a message) where a shell is not installed.

use std::process::Command;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestError, TestRunner};

use seal_parse::shell::{segment, ShellLimits, UnanalysableReason};

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
    /// A word the program models read, written as given (the text is its value).
    Token(&'static str),
}

/// Words the program models and the code checks read, as written and as the shell passes
/// them (spec/shell-segments.md, "Program models" and "Code in arguments"). Each is
/// accepted by the segmenter as a piece of any word, except `{}`, which stands alone.
const TOKENS: &[(&str, &str)] = &[
    ("\\;", ";"),
    ("';'", ";"),
    ("\";\"", ";"),
    ("+", "+"),
    (":::", ":::"),
    ("--", "--"),
    ("-rf", "-rf"),
    ("-fr", "-fr"),
    ("-r", "-r"),
    ("--opt=value", "--opt=value"),
    ("--force", "--force"),
    ("--git-dir=.git", "--git-dir=.git"),
    ("-Cdir", "-Cdir"),
    ("-C", "-C"),
    ("-exec", "-exec"),
    ("+refs/heads/x", "+refs/heads/x"),
    (":branch", ":branch"),
    ("HEAD~1", "HEAD~1"),
];

/// A token as one piece.
fn token() -> impl Strategy<Value = (Style, String)> {
    proptest::sample::select(TOKENS)
        .prop_map(|(written, value)| (Style::Token(written), value.to_owned()))
}

/// One word: pieces in any style (tokens among them), a token alone, or a lone `{}`.
fn word() -> impl Strategy<Value = Word> {
    prop_oneof![
        5 => proptest::collection::vec(prop_oneof![4 => piece(), 1 => token()], 1..4),
        2 => token().prop_map(|t| vec![t]),
        1 => Just(vec![(Style::Token("{}"), "{}".to_owned())]),
    ]
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
                // Never drawn here: tokens come from `token`.
                Style::Token(_) => text,
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
        Style::Token(written) => written.to_owned(),
    }
}

type Word = Vec<(Style, String)>;

/// Segments of words, operators to cycle through, continuations to cycle through.
type Plan = (Vec<Vec<Word>>, Vec<&'static str>, Vec<bool>);

fn command() -> impl Strategy<Value = Plan> {
    let segment = proptest::collection::vec(word(), 0..5);
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
    seal_test_support::no_persistence(cases)
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
    let mut runner = seal_test_support::seeded(256);
    let result = runner.run(&command(), agrees(shells, broken_args));
    assert!(matches!(result, Err(TestError::Fail(..))), "{result:?}");
}

/// Words with braces the segmenter does not read (brace expansion in bash, a brace group, or
/// a brace inside a word), written as they stand in the command.
const REFUSED: &[&str] = &[
    "{a,b}", "{1..3}", "x{a,b}y", "{}x", "x{}", "{}'a'", "{", "}", "a{b}", "{a}", "-{}",
];

/// A command as [`command`] builds it, with one refused word inserted at a chosen place.
fn refused_command() -> impl Strategy<Value = (Plan, &'static str, usize, usize)> {
    (
        command(),
        proptest::sample::select(REFUSED),
        any::<usize>(),
        any::<usize>(),
    )
}

/// The command text with `refused` as a word of one segment, and where that word starts.
fn build_refused(plan: &Plan, refused: &str, segment: usize, word: usize) -> (String, usize) {
    let (mut segments, operators, continuations) = plan.clone();
    let at = segment % segments.len();
    let words = &mut segments[at];
    let marker = (Style::Token("@MARK@"), String::new());
    words.insert(word % (words.len() + 1), vec![marker]);
    let (text, _) = build(&(segments, operators, continuations));
    let start = text.find("@MARK@").unwrap();
    (text.replacen("@MARK@", refused, 1), start)
}

#[test]
fn refused_braces_are_refused_with_a_reason() {
    let mut runner = TestRunner::new(config(512));
    let result = runner.run(&refused_command(), |(plan, refused, at, word)| {
        let (text, start) = build_refused(&plan, refused, at, word);
        let Err(error) = segment(&text, &ShellLimits::default()) else {
            return Err(TestCaseError::fail(format!("{text:?} was accepted")));
        };
        prop_assert!(
            matches!(
                error.reason,
                UnanalysableReason::BraceExpansion | UnanalysableReason::BraceGroup
            ),
            "{:?}: {}",
            text,
            error
        );
        // The offset names a brace of the refused word, not some other place.
        let brace = refused.find(['{', '}']).unwrap() + start;
        prop_assert!(
            error.offset >= start && error.offset <= brace,
            "{:?}: {}",
            text,
            error
        );
        prop_assert!(!error.reason.code().is_empty());
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
}

/// Harmless redirections that leave standard output where it is, between words, first in a
/// segment and (without a descriptor) attached to a word: the shells pass `f` the words the
/// segmenter keeps.
#[test]
fn harmless_redirections_leave_the_words_real_shells_pass() {
    let shells = shells();
    for redirection in [
        "2>/dev/null",
        "2>>/dev/null",
        "2> /dev/null",
        "</dev/null",
        "< /dev/null",
        "0</dev/null",
        "2>&1",
        "2>& 1",
    ] {
        let mut text = format!("f a {redirection} b;{redirection} f e");
        let mut expected = vec![vec!["a", "b"], vec!["e"]];
        if redirection.starts_with('<') {
            text.push_str(&format!("; f c{redirection} d"));
            expected.push(vec!["c", "d"]);
        }
        let ours = segmenter_args(&text);
        assert_eq!(ours, expected, "{text:?}");
        for shell in &shells {
            assert_eq!(
                run_shell(shell, &text).unwrap(),
                ours,
                "{shell} on {text:?}"
            );
        }
    }
    // Digits attached to a word are part of it, and the operator then redirects standard
    // output: the shells print nothing for that `f`.
    assert_eq!(segmenter_args("f c2>/dev/null d"), [vec!["c2", "d"]]);
    for shell in &shells {
        assert_eq!(
            run_shell(shell, "f c2>/dev/null d").unwrap(),
            Vec::<Vec<String>>::new()
        );
    }
}
