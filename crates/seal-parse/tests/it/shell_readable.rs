//! What can be read of an unanalysable command (spec/shell-segments.md section 9):
//!
//! - the examples of the spec, each kind of piece, redirection and unread record;
//! - R1: any text (hostile characters and shell fragments) reads without panic, and the fuzz
//!   property holds (work bound, every piece segments to its segments, an analysable command
//!   reads as itself);
//! - R2: a command nested in any stack of substitutions, groups, payloads, `eval`s, compound
//!   commands and here-documents is among the segments read. Control: keeping only the
//!   skeleton (depth 0) misses it;
//! - R3: an analysable command (quoted words, operators, harmless redirections) reads as one
//!   piece with its own words. Control: a reader that loses its double quotes is caught;
//! - linear work on hostile inputs of 1 MiB (unbalanced parentheses, unterminated quotes,
//!   nesting far beyond the depth limit, deep payloads), with a negative control of the check.

use proptest::prelude::*;
use proptest::test_runner::TestError;

use seal_parse::shell::fuzz_check::{shell_readable, READABLE_STEPS_PER_BYTE_PER_LEVEL};
use seal_parse::shell::{
    quote_word, readable, segment, Readable, ShellLimits, UnanalysableReason, UnreadReason,
    MAX_READABLE_DEPTH, SUBSTITUTED,
};

/// What `readable` reads of `command` with the default limits, after checking the fuzz
/// property on it.
fn reading(command: &str) -> Readable {
    let read = readable(command, &ShellLimits::default());
    assert_eq!(shell_readable(command.as_bytes()), Ok(()), "{command:?}");
    read
}

fn texts(read: &Readable) -> Vec<&str> {
    read.pieces().iter().map(|p| p.text()).collect()
}

/// The words of every segment of every piece.
fn all_words(read: &Readable) -> Vec<Vec<String>> {
    read.pieces()
        .iter()
        .flat_map(|p| p.segments().iter().map(|s| s.words().to_vec()))
        .collect()
}

fn has_words(read: &Readable, words: &[&str]) -> bool {
    all_words(read).iter().any(|w| w == words)
}

fn unread_codes(read: &Readable) -> Vec<(usize, &'static str)> {
    read.unread()
        .iter()
        .map(|u| (u.offset(), u.reason().code()))
        .collect()
}

// ---------------------------------------------------------------- the spec's examples

#[test]
fn a_substitution_is_a_placeholder_and_its_body_a_piece() {
    let read = reading("cat $(echo ~/.ssh/id_rsa)");
    assert_eq!(texts(&read), ["cat SUBSTITUTED", "echo ~/.ssh/id_rsa"]);
    let at: Vec<(usize, usize)> = read
        .pieces()
        .iter()
        .map(|p| (p.offset(), p.depth()))
        .collect();
    assert_eq!(at, [(0, 0), (6, 1)]);
    assert!(read.redirects().is_empty() && read.unread().is_empty());
}

#[test]
fn a_redirection_is_removed_and_its_file_recorded() {
    let read = reading("echo x > ~/.seal/rules.json");
    assert_eq!(texts(&read), ["echo x"]);
    let [target] = read.redirects() else {
        panic!("{read:?}")
    };
    assert_eq!(target.target(), "~/.seal/rules.json");
    assert_eq!(
        (target.writes(), target.reads(), target.is_plain()),
        (true, false, true)
    );
    assert_eq!(target.offset(), 7);
}

#[test]
fn an_input_redirection_is_read_and_the_pipeline_kept() {
    let read = reading("cat < ~/.aws/credentials | base64");
    let [target] = read.redirects() else {
        panic!("{read:?}")
    };
    assert_eq!(target.target(), "~/.aws/credentials");
    assert_eq!((target.writes(), target.reads()), (false, true));
    let [piece] = read.pieces() else {
        panic!("{read:?}")
    };
    assert_eq!(all_words(&read), [vec!["cat"], vec!["base64"]]);
    assert_eq!(piece.segments().len(), 2);
}

#[test]
fn a_comment_is_not_run() {
    let read = reading("ls # rm -rf /");
    assert_eq!(texts(&read), ["ls"]);
    assert!(read.unread().is_empty());
    // Not a comment: `#` inside a word, quoted or escaped.
    assert_eq!(
        all_words(&reading("ls a#b '#' \\# $x")),
        [vec!["ls", "a#b", "#", "#", SUBSTITUTED]]
    );
}

#[test]
fn home_starting_a_word_reads_as_a_tilde() {
    let read = reading("cat \"$HOME/.ssh/id_rsa\"");
    assert_eq!(all_words(&read), [vec!["cat", "~/.ssh/id_rsa"]]);
    let read = reading("cat $HOME/x ${HOME}/y a$HOME \"$HOME\" \"a$HOME\" $HOMEDIR ${HOME:-/}");
    assert_eq!(
        all_words(&read),
        [vec![
            "cat",
            "~/x",
            "~/y",
            "aSUBSTITUTED",
            "~",
            "aSUBSTITUTED",
            SUBSTITUTED,
            SUBSTITUTED
        ]]
    );
    // In program position too (a quoted tilde, which the segmenter accepts there).
    assert_eq!(
        all_words(&reading("$HOME/bin/rm -rf t")),
        [vec!["~/bin/rm", "-rf", "t"]]
    );
}

#[test]
fn a_subshell_becomes_separators() {
    let read = reading("(cd /tmp && rm -rf x)");
    assert_eq!(
        all_words(&read),
        [vec!["cd", "/tmp"], vec!["rm", "-rf", "x"]]
    );
    assert_eq!(read.pieces()[0].offset(), 1);
}

#[test]
fn an_assignment_from_a_substitution() {
    let read = reading("x=$(cat ~/.netrc); echo $x");
    assert_eq!(texts(&read), ["cat ~/.netrc", "echo SUBSTITUTED"]);
    // The assignment alone does not segment, and says so.
    assert_eq!(unread_codes(&read), [(0, "assignment_only")]);
}

#[test]
fn a_process_substitution() {
    let read = reading("diff <(cat ~/.ssh/id_rsa) a.txt");
    assert_eq!(
        texts(&read),
        ["diff SUBSTITUTED a.txt", "cat ~/.ssh/id_rsa"]
    );
    assert_eq!(read.pieces()[1].depth(), 1);
}

#[test]
fn nested_substitutions_give_a_piece_per_level() {
    let read = reading("echo $(cat $(echo a))");
    let pieces: Vec<(&str, usize, usize)> = read
        .pieces()
        .iter()
        .map(|p| (p.text(), p.offset(), p.depth()))
        .collect();
    assert_eq!(
        pieces,
        [
            ("echo SUBSTITUTED", 0, 0),
            ("cat SUBSTITUTED", 7, 1),
            ("echo a", 13, 2)
        ]
    );
}

#[test]
fn hostile_inputs_never_panic() {
    let deep = "$(".repeat(100_000);
    let closed = format!("{}x{}", "$(".repeat(50_000), ")".repeat(50_000));
    for command in [
        "(((",
        ")))",
        "(a) b) c",
        "echo 'unterminated",
        "echo \"unterminated $(rm",
        "echo `unterminated",
        "echo $(unterminated",
        "echo ${unterminated",
        "echo $((unterminated",
        "cat <<EOF\nno delimiter",
        "cat <<",
        "ls >",
        "$",
        "\\",
        "'",
        "\"",
        "`",
        "$'",
        "${",
        "<(",
        "}{",
        "\u{0}\u{202e}\r",
        deep.as_str(),
        closed.as_str(),
    ] {
        let read = reading(command);
        for piece in read.pieces() {
            assert!(segment(piece.text(), &ShellLimits::default()).is_ok());
        }
    }
}

// ---------------------------------------------------------------- pieces

/// Commands that run `rm -rf t` in some way: a piece must have it as a segment.
#[test]
fn every_nesting_reads_the_command_inside() {
    for command in [
        "echo $(rm -rf t)",
        "echo `rm -rf t`",
        "echo \"$(rm -rf t)\"",
        "echo \"`rm -rf t`\"",
        "diff <(rm -rf t) x",
        "tee >(rm -rf t)",
        "echo $((1 + $(rm -rf t)))",
        "echo $((rm -rf t) )",
        "echo ${x:-$(rm -rf t)}",
        "echo ${x:-`rm -rf t`}",
        "x=$(rm -rf t)",
        "cat <<EOF\n$(rm -rf t)\nEOF",
        "cat <<-EOF\n\t`rm -rf t`\n\tEOF",
        "cat <<< $(rm -rf t)",
        "cat > $(rm -rf t)",
        "eval 'rm -rf t'",
        "eval rm -rf t",
        "bash -c 'rm -rf t; echo $x'",
        "sudo sh -c \"rm -rf t; echo \\$x\"",
        "sh -c \"bash -c 'rm -rf t; \\$x'\"",
        "bash -c 'eval \"rm -rf t\"'",
        "if rm -rf t; then :; fi",
        "if true; then rm -rf t; else :; fi",
        "while rm -rf t; do :; done",
        "until false; do rm -rf t; done",
        "for x in y; do rm -rf t; done",
        "case x in y) rm -rf t;; esac",
        "! rm -rf t",
        "{ rm -rf t; }",
        "(rm -rf t)",
        "((x++)) && rm -rf t",
        "f() { rm -rf t; }",
        "coproc rm -rf t",
        "rm -rf t # $(x)",
        "echo $x; rm -rf t 2>x",
        "rm -rf t <<EOF\n$(x)\nEOF",
        "echo \\$(rm -rf t)",
        "rm -rf t\r",
    ] {
        let read = reading(command);
        let found = read
            .pieces()
            .iter()
            .flat_map(|p| p.segments().iter())
            .any(|s| s.forms().normalized().to_words() == ["rm", "-rf", "t"]);
        // A control character makes the statement unread: it says so.
        if command.contains('\r') {
            assert!(!found && !read.unread().is_empty(), "{command:?}: {read:?}");
            continue;
        }
        assert!(found, "{command:?}: {read:?}");
    }
}

#[test]
fn literal_text_is_not_read_as_commands() {
    // Single quotes, quoted here-document delimiters and comments run nothing.
    for command in [
        "echo '$(rm -rf t)'",
        "cat <<'EOF'\n$(rm -rf t)\nEOF",
        "cat <<\"EOF\"\n`rm -rf t`\nEOF",
        "cat <<\\EOF\n$(rm -rf t)\nEOF",
        "ls # $(rm -rf t)",
        "ls <<EOF\nrm -rf t\nEOF",
    ] {
        let read = reading(command);
        assert!(
            !has_words(&read, &["rm", "-rf", "t"]),
            "{command:?}: {read:?}"
        );
        assert_eq!(read.pieces().len(), 1, "{command:?}: {read:?}");
    }
    assert_eq!(
        all_words(&reading("echo '$(x)' \"\\$y\"")),
        [vec!["echo", "$(x)", "$y"]]
    );
}

#[test]
fn here_documents_are_removed_and_the_lines_after_them_read() {
    let read = reading("cat <<A <<-B | sh\na\nA\n\tb $(x)\n\tB\nls\n");
    assert_eq!(texts(&read), ["cat|sh;ls", "x"]);
    assert!(read.redirects().is_empty());
}

#[test]
fn the_placeholder_stands_where_the_value_would() {
    assert_eq!(
        all_words(&reading("$CMD -rf t")),
        [vec![SUBSTITUTED, "-rf", "t"]]
    );
    assert_eq!(
        all_words(&reading("echo $1 $@ $? ${#x} $'\\x41' $\"y\" a$(b)c $")),
        [
            vec![
                "echo",
                SUBSTITUTED,
                SUBSTITUTED,
                SUBSTITUTED,
                SUBSTITUTED,
                SUBSTITUTED,
                "y",
                "aSUBSTITUTEDc",
                "$"
            ],
            vec!["b"]
        ]
    );
}

#[test]
fn braces_and_bangs_that_are_words_stay_words() {
    assert_eq!(
        all_words(&reading("find . -exec rm {} + ; echo a{b,c} x!y")),
        [
            vec!["find", ".", "-exec", "rm", "{}", "+"],
            vec!["echo", "a{b,c}", "x!y"]
        ]
    );
}

#[test]
fn a_payload_that_does_not_segment_is_read_with_its_launcher() {
    let read = reading("sudo bash -c 'rm $x'");
    assert_eq!(texts(&read), ["sudo bash -c SUBSTITUTED", "rm SUBSTITUTED"]);
    let launcher = &read.pieces()[0].segments().as_slice()[0];
    assert_eq!(
        launcher.launchers()[0].to_vec(),
        ["sudo", "bash", "-c", SUBSTITUTED]
    );
    assert_eq!(read.pieces()[1].depth(), 1);
    assert!(read.unread().is_empty());
}

#[test]
fn eval_runs_its_arguments_joined() {
    let read = reading("eval \"rm -rf\" 't'; ls");
    assert_eq!(texts(&read), ["rm -rf t", "ls"]);
    assert_eq!(unread_codes(&read), [(0, "eval_builtin")]);
}

#[test]
fn statements_that_do_not_segment_are_unread_and_the_others_kept() {
    let command = "for x in $(ls); do rm -rf \"$x\"; done; a=1";
    let read = reading(command);
    assert_eq!(texts(&read), ["ls", "rm -rf \"SUBSTITUTED\""]);
    let unread: Vec<_> = read
        .unread()
        .iter()
        .map(|u| (u.offset(), u.reason().clone()))
        .collect();
    assert_eq!(
        unread,
        [
            (
                0,
                UnreadReason::Unanalysable(UnanalysableReason::Keyword { word: "for".into() })
            ),
            (
                command.find("a=1").unwrap(),
                UnreadReason::Unanalysable(UnanalysableReason::AssignmentOnly)
            )
        ]
    );
    assert_eq!(
        read.unread()[0].to_string(),
        "unread at byte 0: reserved word `for`"
    );
}

#[test]
fn bodies_deeper_than_the_limit_are_unread() {
    let mut command = String::from("rm x");
    for _ in 0..MAX_READABLE_DEPTH + 2 {
        command = format!("echo $({command})");
    }
    let read = reading(&command);
    let depths: Vec<usize> = read.pieces().iter().map(|p| p.depth()).collect();
    assert_eq!(depths, (0..=MAX_READABLE_DEPTH).collect::<Vec<_>>());
    let too_deep = 7 * (MAX_READABLE_DEPTH + 1) - 2;
    assert_eq!(unread_codes(&read), [(too_deep, "too_deep")]);
    assert_eq!(
        read.unread()[0].reason(),
        &UnreadReason::TooDeep {
            max: MAX_READABLE_DEPTH
        }
    );
    assert!(!has_words(&read, &["rm", "x"]));
}

#[test]
fn a_command_over_the_size_limit_is_not_read() {
    let limits = ShellLimits::DEFAULT.with_max_bytes(4);
    let read = readable("echo $(x)", &limits);
    assert!(read.pieces().is_empty() && read.redirects().is_empty());
    assert_eq!(unread_codes(&read), [(0, "too_long")]);
    assert_eq!(read.steps(), 0);
    // Pieces are segmented with the caller's limits.
    let limits = ShellLimits::DEFAULT.with_max_words(2);
    let read = readable("a b c; d $(e f)", &limits);
    assert_eq!(texts(&read), ["d SUBSTITUTED", "e f"]);
    assert_eq!(unread_codes(&read), [(0, "too_many_words")]);
}

// ---------------------------------------------------------------- redirections

#[test]
fn redirections_record_their_file_and_access() {
    // (command, target, plain, reads, writes)
    for (command, target, plain, reads, writes) in [
        ("a > f", "f", true, false, true),
        ("a >>f", "f", true, false, true),
        ("a >| f", "f", true, false, true),
        ("a &> f", "f", true, false, true),
        ("a &>>f", "f", true, false, true),
        ("a 2> f", "f", true, false, true),
        ("a 3>f", "f", true, false, true),
        ("a >&f", "f", true, false, true),
        ("a < f", "f", true, true, false),
        ("a 0<f", "f", true, true, false),
        ("a 2<f", "f", true, true, false),
        ("a <> f", "f", true, true, true),
        ("a >/dev/null", "/dev/null", true, false, true),
        ("a > \"$HOME/.bashrc\"", "~/.bashrc", true, false, true),
        ("a > ${HOME}/x", "~/x", true, false, true),
        ("a > ~/x", "~/x", true, false, true),
        ("a > 'sp ace'", "sp ace", true, false, true),
        ("a > f\\ g", "f g", true, false, true),
        ("a > \"x\\\"y\"", "x\"y", true, false, true),
        ("a > $x/y", "SUBSTITUTED/y", false, false, true),
        ("a >x$HOME", "xSUBSTITUTED", false, false, true),
        ("a > *.txt", "*.txt", false, false, true),
        ("a > {b,c}", "{b,c}", false, false, true),
        ("a > `b`", "SUBSTITUTED", false, false, true),
        ("a > <(b)", "SUBSTITUTED", false, false, true),
    ] {
        let read = reading(command);
        let [redirect] = read.redirects() else {
            panic!("{command:?}: {read:?}")
        };
        assert_eq!(
            (
                redirect.target(),
                redirect.is_plain(),
                redirect.reads(),
                redirect.writes()
            ),
            (target, plain, reads, writes),
            "{command:?}"
        );
        assert_eq!(
            redirect.offset(),
            command.find(['<', '>', '&']).unwrap(),
            "{command:?}"
        );
        assert_eq!(all_words(&read)[0], ["a"], "{command:?}");
    }
}

#[test]
fn redirections_that_name_no_file_are_not_recorded() {
    for command in [
        "a 2>&1",
        "a >&2",
        "a >&-",
        "a 2>&1-",
        "a <&0",
        "a 3<&-",
        "a <<EOF\nx\nEOF",
        "a <<< x",
    ] {
        let read = reading(command);
        assert!(read.redirects().is_empty(), "{command:?}: {read:?}");
        assert!(read.unread().is_empty(), "{command:?}: {read:?}");
        assert_eq!(all_words(&read), [vec!["a"]], "{command:?}");
    }
    // A descriptor is a word of digits right before the operator; elsewhere digits are words.
    assert_eq!(
        all_words(&reading("a 2>f b2>f 2 >f")),
        [vec!["a", "b2", "2"]]
    );
}

#[test]
fn a_redirection_without_a_target_is_unread() {
    for (command, offset) in [("a >", 2), ("a > ;b", 2), ("a < # c", 2), ("a <<", 2)] {
        let read = reading(command);
        assert_eq!(
            unread_codes(&read),
            [(offset, "missing_target")],
            "{command:?}"
        );
        assert_eq!(all_words(&read)[0], ["a"], "{command:?}");
    }
    assert_eq!(all_words(&reading("a > ;b")), [vec!["a"], vec!["b"]]);
}

// ---------------------------------------------------------------- R1

/// Fragments a hostile command is made of, for the reader: every construct it rewrites.
const HOSTILE: &[&str] = &[
    "a",
    "rm",
    " ",
    "\t",
    "\n",
    "\r",
    ";",
    ";;",
    "&",
    "&&",
    "|",
    "||",
    "'",
    "\"",
    "\\",
    "\\\n",
    "$",
    "$(",
    "$((",
    "${",
    "$'",
    "$\"",
    "$HOME",
    "${HOME}",
    "$1",
    "`",
    "\\`",
    "(",
    ")",
    "((",
    "))",
    "{",
    "}",
    "{}",
    "<",
    ">",
    "<<",
    "<<-",
    "<<<",
    ">&",
    "2>&1",
    "<(",
    ">(",
    "&>",
    "#",
    "!",
    "~",
    "=",
    "x=",
    "*",
    "EOF",
    "\nEOF\n",
    "if ",
    "then ",
    "do ",
    "done",
    "for ",
    "case ",
    "eval ",
    "bash -c ",
    "sh -c '",
    "sudo ",
    "/dev/null",
    "\u{0}",
    "\u{202e}",
    "\u{a0}",
    "\u{433}",
    "\u{e9}",
    "\u{1f600}",
];

fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(proptest::sample::select(HOSTILE), 0..48)
            .prop_map(|parts| parts.concat()),
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2048))]

    #[test]
    fn r1_any_text_reads_without_panic(text in hostile_text()) {
        prop_assert_eq!(shell_readable(text.as_bytes()), Ok(()));
    }
}

// ---------------------------------------------------------------- R2

/// A way to nest a command: the text around it (its words are plain, so every template may
/// quote it as it likes).
type Template = fn(&str) -> String;

const TEMPLATES: &[Template] = &[
    // A blank after `$(`: `$((` would start arithmetic.
    |c| format!("echo $( {c} )"),
    |c| format!("echo \"$( {c} )\""),
    |c| {
        format!(
            "echo `{}`",
            c.replace('\\', "\\\\")
                .replace('`', "\\`")
                .replace('$', "\\$")
        )
    },
    |c| format!("diff <( {c} ) x"),
    |c| format!("tee >( {c} )"),
    |c| format!("echo ${{x:-$( {c} )}}"),
    |c| format!("echo $(( $( {c} ) ))"),
    |c| format!("( {c} )"),
    |c| format!("{{ {c}; }}"),
    |c| format!("if {c}; then :; fi"),
    |c| format!("while :; do {c}; done"),
    |c| format!("x=$( {c} ); echo $x"),
    |c| format!("{c} # $(c)"),
    |c| format!("{c} > \"$HOME/f\" 2>&1"),
    |c| format!("bash -c {}", quote_word(&format!("{c}; echo $z"))),
    |c| format!("eval {}", quote_word(c)),
    |c| format!("cat <<EOF\n$( {c} )\nEOF\n"),
    |c| format!("! {c} | cat"),
];

/// The inner command's words: a program and arguments of plain characters, that segment as
/// one segment of exactly these words (no reserved word, shell or `eval`).
fn inner() -> impl Strategy<Value = Vec<String>> {
    (
        "[a-z][a-z0-9]{0,5}",
        proptest::collection::vec("[a-z0-9./-]{1,6}", 0..4),
    )
        .prop_map(|(program, args)| {
            let mut words = vec![program];
            words.extend(args);
            words
        })
        .prop_filter("one plain segment", |words| {
            segment(&words.join(" "), &ShellLimits::default())
                .is_ok_and(|s| s.len() == 1 && s.as_slice()[0].words() == words.as_slice())
        })
}

fn nesting() -> impl Strategy<Value = (Vec<String>, Vec<usize>)> {
    (
        inner(),
        proptest::collection::vec(0..TEMPLATES.len(), 1..=4),
    )
}

type Pieces = fn(&Readable) -> Vec<Vec<String>>;

fn nested_is_read(
    pieces: Pieces,
) -> impl Fn((Vec<String>, Vec<usize>)) -> Result<(), TestCaseError> {
    move |(words, templates)| {
        let mut command = words.join(" ");
        for &at in &templates {
            command = TEMPLATES[at](&command);
        }
        let read = readable(&command, &ShellLimits::default());
        prop_assert!(
            pieces(&read).contains(&words),
            "{:?} not read in {:?}: {:?}",
            words,
            command,
            read
        );
        Ok(())
    }
}

/// Only the words of the skeleton pieces (depth 0): what a reader that does not read bodies
/// would give.
fn skeleton_only(read: &Readable) -> Vec<Vec<String>> {
    read.pieces()
        .iter()
        .filter(|p| p.depth() == 0)
        .flat_map(|p| p.segments().iter().map(|s| s.words().to_vec()))
        .collect()
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(1024))]

    #[test]
    fn r2_nested_commands_are_read(case in nesting()) {
        nested_is_read(all_words)(case)?;
    }
}

#[test]
fn r2_control_reading_only_the_skeleton_is_caught() {
    let result = seal_test_support::seeded(256).run(&nesting(), nested_is_read(skeleton_only));
    assert!(matches!(result, Err(TestError::Fail(..))), "{result:?}");
}

// ---------------------------------------------------------------- R3

/// Words of any printable ASCII and a few others, in double quotes.
fn quoted_word() -> impl Strategy<Value = String> {
    let chars = prop_oneof![
        4 => proptest::char::range(' ', '~'),
        1 => proptest::sample::select(vec!['\n', '\t', '\u{e9}']),
    ];
    proptest::collection::vec(chars, 0..8).prop_map(|c| c.into_iter().collect())
}

fn analysable() -> impl Strategy<Value = String> {
    let segment = (
        proptest::sample::select(vec!["git", "ls", "/usr/bin/grep", "sudo rm", "bash -c"]),
        proptest::collection::vec(quoted_word(), 0..4),
        proptest::sample::select(vec![
            "",
            " 2>&1",
            " >/dev/null",
            " </dev/null",
            " &>/dev/null",
        ]),
    )
        .prop_map(|(program, args, redirection)| {
            let mut text = program.to_owned();
            for arg in args {
                text.push(' ');
                text.push('"');
                for c in arg.chars() {
                    if matches!(c, '"' | '\\' | '$' | '`') {
                        text.push('\\');
                    }
                    text.push(c);
                }
                text.push('"');
            }
            text.push_str(redirection);
            text
        });
    (
        proptest::collection::vec(segment, 1..5),
        proptest::sample::select(vec![" && ", " | ", "; ", "\n", " || ", " & "]),
    )
        .prop_map(|(segments, operator)| segments.join(operator))
}

type Reader = fn(&str) -> Readable;

fn reads_as_itself(reader: Reader) -> impl Fn(String) -> Result<(), TestCaseError> {
    move |command| {
        let Ok(segments) = segment(&command, &ShellLimits::default()) else {
            // A payload word that is no command (`bash -c "("`): not this property's case.
            return Ok(());
        };
        let read = reader(&command);
        let [piece] = read.pieces() else {
            return Err(TestCaseError::fail(format!("{command:?}: {read:?}")));
        };
        let words: Vec<Vec<String>> = segments.iter().map(|s| s.words().to_vec()).collect();
        let read_words: Vec<Vec<String>> = piece
            .segments()
            .iter()
            .map(|s| s.words().to_vec())
            .collect();
        prop_assert_eq!(read_words, words, "{:?}", command);
        prop_assert!(read.unread().is_empty());
        Ok(())
    }
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(1024))]

    #[test]
    fn r3_analysable_commands_read_as_themselves(command in analysable()) {
        reads_as_itself(|c| readable(c, &ShellLimits::default()))(command)?;
    }
}

#[test]
fn r3_control_losing_double_quotes_is_caught() {
    let result = seal_test_support::seeded(256).run(
        &analysable(),
        reads_as_itself(|c| readable(&c.replace('"', ""), &ShellLimits::default())),
    );
    assert!(matches!(result, Err(TestError::Fail(..))), "{result:?}");
}

// ---------------------------------------------------------------- linear work

const TARGET: usize = 1 << 20;

fn repeat_to(unit: &str, target: usize) -> String {
    unit.repeat(target / unit.len() + 1)
}

fn nested(open: &str, close: &str, target: usize) -> String {
    let n = target / (open.len() + close.len()) + 1;
    format!("{}x{}", open.repeat(n), close.repeat(n))
}

/// `wrap` applied until the text passes `target` bytes.
fn wrapped(mut text: String, target: usize, wrap: fn(&str) -> String) -> String {
    while text.len() < target {
        text = wrap(&text);
    }
    text
}

/// Hostile commands, each at least `target` bytes long.
fn inputs_of(target: usize) -> Vec<(&'static str, String)> {
    let repeat_to = |unit: &str| repeat_to(unit, target);
    let bulk = |head: &str, wraps: usize, wrap: fn(&str) -> String| {
        let mut text = format!("{head} {}", repeat_to("x "));
        for _ in 0..wraps {
            text = wrap(&text);
        }
        text
    };
    vec![
        ("dollars", repeat_to("$a")),
        ("dollar_words", repeat_to("echo $a \"$b\"; ")),
        ("substitutions", repeat_to("$(a)")),
        ("backticks", repeat_to("`a`")),
        ("process_substitutions", repeat_to("<(a)>(b)")),
        ("open_substitutions", repeat_to("$(")),
        ("open_parameters", repeat_to("${")),
        ("open_arithmetic", repeat_to("$((")),
        ("open_parens", repeat_to("(")),
        ("arithmetic_commands", repeat_to("((a) ")),
        ("closing_parens", repeat_to(")")),
        ("nested_substitutions", nested("$(", ")", target)),
        ("nested_quoted", nested("\"$(", ")\"", target)),
        ("nested_parameters", nested("${x:-", "}", target)),
        ("nested_arithmetic", nested("$((", "))", target)),
        ("nested_groups", nested("(", ")", target)),
        ("brace_groups", repeat_to("{ a; } ")),
        (
            "keywords",
            repeat_to("if a; then b; fi; for x in y; do z; done\n"),
        ),
        ("assignments", repeat_to("x=$(a); ")),
        ("heredocs_on_a_line", repeat_to("<<A ") + "\nA\n"),
        ("heredocs", repeat_to("cat <<A\n$(x)\nA\n")),
        ("unterminated_single", format!("ls '{}", repeat_to("a;b"))),
        ("unterminated_double", format!("ls \"{}", repeat_to("$a;b"))),
        ("unterminated_backtick", format!("ls `{}", repeat_to("a;b"))),
        ("redirections", repeat_to("a >$x <y 2>&1 &>z ")),
        ("comments", repeat_to("a # $(b)\n")),
        ("bangs", repeat_to("! ")),
        ("ansi_c", repeat_to("$'a\\'")),
        (
            "nested_payload",
            wrapped("rm $x".into(), target, |t| {
                format!("bash -c {}", quote_word(t))
            }),
        ),
        (
            "nested_eval",
            wrapped("rm $x".into(), target, |t| {
                format!("eval {}", quote_word(t))
            }),
        ),
        (
            "nested_backticks",
            wrapped("rm x".into(), target, |t| {
                format!("echo `{}`", t.replace('\\', "\\\\").replace('`', "\\`"))
            }),
        ),
        (
            "payload_bulk",
            bulk("echo $a", 7, |t| format!("bash -c {}", quote_word(t))),
        ),
        (
            "eval_bulk",
            bulk("echo $a", 7, |t| format!("eval {}", quote_word(t))),
        ),
        (
            "many_payloads",
            repeat_to("bash -c 'sh -c \"echo \\$a\"'; "),
        ),
    ]
}

fn huge(depth: usize) -> ShellLimits {
    ShellLimits::DEFAULT
        .with_max_bytes(usize::MAX)
        .with_max_segments(usize::MAX)
        .with_max_words(usize::MAX)
        .with_max_payload_depth(depth)
}

/// The work bound of [`READABLE_STEPS_PER_BYTE_PER_LEVEL`] for `len` bytes.
fn bound(limits: &ShellLimits, len: usize) -> usize {
    READABLE_STEPS_PER_BYTE_PER_LEVEL * (limits.max_payload_depth + 2) * (len + 1)
}

/// Whether the steps per byte at the larger size are at most 11/10 of those at the smaller.
fn grows_linearly(small: (usize, usize), large: (usize, usize)) -> bool {
    10 * large.1 * small.0 <= 11 * small.1 * large.0
}

#[test]
fn hostile_commands_take_linear_work() {
    // Each shape at about 100 KiB and at ten times that (the payload shapes also with the
    // segmenter's payload depth at 0 and 8): the work stays within the bound at 1 MiB, and per
    // byte grows at most by a tenth from the smaller size to the larger.
    for depth in [0, 3, 8] {
        let limits = huge(depth);
        for ((name, small), (_, large)) in inputs_of(TARGET / 10).into_iter().zip(inputs_of(TARGET))
        {
            if depth != 3 && !(name.contains("payload") || name.contains("eval")) {
                continue;
            }
            assert!(large.len() >= TARGET, "{name}");
            let s = readable(&small, &limits).steps();
            let l = readable(&large, &limits).steps();
            assert!(
                l <= bound(&limits, large.len()),
                "{name}: {l} steps for {} bytes",
                large.len()
            );
            assert!(s > 0 && l > 0, "{name}: no steps counted");
            assert!(
                grows_linearly((small.len(), s), (large.len(), l)),
                "{name} at depth {depth}: {s} steps for {} bytes, then {l} for {}",
                small.len(),
                large.len()
            );
        }
    }
}

#[test]
fn negative_control_quadratic_work_is_caught() {
    // 10x the input with 100x (or 12x) the steps fails the check; 10x and 11x pass.
    assert!(!grows_linearly((1000, 4000), (10_000, 400_000)));
    assert!(!grows_linearly((1000, 4000), (10_000, 48_000)));
    assert!(grows_linearly((1000, 4000), (10_000, 44_000)));
    assert!(grows_linearly((1000, 4000), (10_000, 40_000)));
}

#[test]
fn default_limits_stop_before_reading_a_huge_command() {
    for (name, command) in inputs_of(TARGET) {
        let read = readable(&command, &ShellLimits::default());
        assert_eq!(read.steps(), 0, "{name}");
        assert_eq!(unread_codes(&read), [(0, "too_long")], "{name}");
    }
}

#[test]
fn the_segmenter_corpus_reads_with_the_readable_property() {
    // Until `shell_readable` has a corpus of its own, the segmenter's seeds (attack shapes,
    // lookalikes, redirections, invalid UTF-8) are read with its property.
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/shell_segments");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        assert_eq!(
            shell_readable(&data),
            Ok(()),
            "{:?}",
            String::from_utf8_lossy(&data)
        );
        count += 1;
    }
    assert!(count > 0);
}
