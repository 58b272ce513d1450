//! One test per unanalysable reason: a command that triggers it, the byte offset reported, and
//! (where it teaches something) a near twin that is analysable.

use seal_parse::shell::{segment, ShellLimits, Unanalysable, UnanalysableReason};

fn fail_with(command: &str, limits: &ShellLimits) -> Unanalysable {
    match segment(command, limits) {
        Ok(segments) => panic!("`{command}` should be unanalysable, got {segments:?}"),
        Err(error) => error,
    }
}

/// Asserts `command` is unanalysable with `code` at byte `offset`.
fn check(command: &str, code: &str, offset: usize) {
    let error = fail_with(command, &ShellLimits::default());
    assert_eq!(error.reason.code(), code, "`{command}`: {error}");
    assert_eq!(error.offset, offset, "`{command}`: {error}");
    assert_eq!(error.payload_depth, 0);
    assert!(!error.to_string().is_empty());
}

fn analysable(command: &str) {
    if let Err(error) = segment(command, &ShellLimits::default()) {
        panic!("`{command}` should be analysable: {error}");
    }
}

macro_rules! reasons {
    ($($name:ident: $command:expr => $code:expr, $offset:expr;)*) => {
        $(
            #[test]
            fn $name() {
                check($command, $code, $offset);
            }
        )*

        /// Every reason code exercised above.
        const EXERCISED: &[&str] = &[$($code),*];
    };
}

reasons! {
    empty_command: " \t\n" => "empty_command", 0;
    empty_segment_leading: "&& ls" => "empty_segment", 0;
    empty_segment_double_semicolon: "ls;; ls" => "empty_segment", 3;
    dangling_operator: "ls &&" => "dangling_operator", 3;
    dangling_pipe_after_newline: "ls |\n\n" => "dangling_operator", 3;
    unterminated_single: "echo 'x" => "unterminated_quote", 5;
    unterminated_double: "echo \"x\\\"" => "unterminated_quote", 5;
    trailing_backslash: "ls \\" => "trailing_backslash", 3;
    continuation_in_word: "r\\\nm -rf t" => "continuation_in_word", 1;
    continuation_in_double_quotes: "echo \"a\\\nb\"" => "continuation_in_word", 7;
    command_substitution: "ls $(rm -rf t)" => "command_substitution", 3;
    backtick: "ls \"`rm -rf t`\"" => "backtick", 4;
    arithmetic: "echo $((1+2))" => "arithmetic", 5;
    parameter_expansion: "$CMD -rf t" => "parameter_expansion", 0;
    parameter_expansion_braces: "echo \"${x}\"" => "parameter_expansion", 6;
    parameter_expansion_special: "echo $@" => "parameter_expansion", 5;
    lone_dollar: "echo $" => "dollar", 5;
    lone_dollar_quoted: "echo \"a$\"" => "dollar", 7;
    ansi_c_quote: "rm$'\\t'-rf t" => "ansi_c_quote", 2;
    locale_quote: "echo $\"x\"" => "locale_quote", 5;
    process_substitution_in: "diff <(ls) x" => "process_substitution", 5;
    process_substitution_out: "tee >(rm)" => "process_substitution", 4;
    redirection_out: "git status > ~/.bashrc" => "redirection", 11;
    redirection_append: "echo x>>f" => "redirection", 6;
    redirection_fd: "ls 2>&3" => "redirection", 4;
    redirection_both: "ls &>f" => "redirection", 3;
    redirection_in: "sort <f" => "redirection", 5;
    redirection_clobber: "ls >|f" => "redirection", 3;
    heredoc: "cat <<EOF\nx\nEOF" => "heredoc", 4;
    here_string: "cat <<< x" => "here_string", 4;
    subshell: "(rm -rf t)" => "subshell", 0;
    function_definition: "git() { rm -rf t; }" => "subshell", 3;
    brace_group: "{ rm -rf t; }" => "brace_group", 0;
    brace_expansion: "rm -rf {a,b}" => "brace_expansion", 7;
    comment: "ls # rm -rf t" => "comment", 3;
    bang: "! rm -rf t" => "bang", 0;
    control_character: "ls\r rm" => "control_character", 2;
    control_character_quoted: "echo 'a\u{1b}[2J'" => "control_character", 7;
    del: "ls\u{7f}" => "control_character", 2;
    c1_control: "ls \u{9b}" => "control_character", 3;
    unicode_space: "rm\u{a0}-rf t" => "unicode_space", 2;
    unicode_space_quoted: "echo \"a\u{3000}\"" => "unicode_space", 7;
    invisible_character: "git log\u{200b}" => "invisible_character", 7;
    bidi_override: "echo '\u{202e}t fr- mr'" => "invisible_character", 6;
    tag_character: "ls \u{e0041}" => "invisible_character", 3;
    empty_program: "'' -rf t" => "empty_program", 0;
    non_ascii_program: "\u{433}m -rf t" => "non_ascii_program", 0;
    glob_in_program: "/bin/r? -rf t" => "glob_in_program", 0;
    glob_bracket_program: "[ -f x ]" => "glob_in_program", 0;
    tilde_in_program: "~/bin/rm -rf t" => "tilde_in_program", 0;
    equals_in_program: "=rm -rf t" => "equals_in_program", 0;
    keyword_if: "if true; then rm -rf t; fi" => "keyword", 0;
    keyword_for: "for f in a; do rm f; done" => "keyword", 0;
    keyword_after_wrapper: "sudo while true" => "keyword", 5;
    eval_builtin: "eval 'rm -rf t'" => "eval_builtin", 0;
    source_builtin: "command . ./x" => "eval_builtin", 8;
    assignment_only: "PATH=.; git log" => "assignment_only", 0;
    assignment_expansion: "HOME=~x ls" => "assignment_expansion", 0;
    wrapper_option: "env -S 'rm -rf t'" => "wrapper_option", 0;
    wrapper_option_sudo_shell: "sudo -s rm" => "wrapper_option", 0;
    wrapper_option_xargs_replace: "xargs -I P P -rf t" => "wrapper_option", 0;
    wrapper_operand: "timeout soon rm -rf t" => "wrapper_operand", 0;
    shell_invocation_extra_words: "bash -c 'rm -rf t' x" => "shell_invocation", 0;
    shell_invocation_long_option: "bash --rcfile x -c 'rm -rf t'" => "shell_invocation", 0;
    shell_invocation_missing_payload: "sh -c" => "shell_invocation", 0;
    shell_invocation_option_with_argument: "bash -o posix -c 'ls'" => "shell_invocation", 0;
    unsupported_shell: "fish -c 'rm -rf t'" => "unsupported_shell", 0;
    unsupported_multicall: "busybox rm -rf t" => "unsupported_shell", 0;
}

#[test]
fn too_long() {
    let limits = ShellLimits::DEFAULT.with_max_bytes(4);
    let error = fail_with("ls -l", &limits);
    assert_eq!(error.reason, UnanalysableReason::TooLong { len: 5, max: 4 });
    assert!(segment("ls -", &limits).is_ok());
}

#[test]
fn too_many_segments() {
    let limits = ShellLimits::DEFAULT.with_max_segments(2);
    assert!(segment("a; b", &limits).is_ok());
    let error = fail_with("a; b; c", &limits);
    assert_eq!(error.reason, UnanalysableReason::TooManySegments { max: 2 });
    assert_eq!(error.offset, 6);
    // Payload segments count too.
    let error = fail_with("a; bash -c 'b; c'", &limits);
    assert_eq!(error.reason, UnanalysableReason::TooManySegments { max: 2 });
}

#[test]
fn too_many_words() {
    let limits = ShellLimits::DEFAULT.with_max_words(2);
    assert!(segment("a b; c d", &limits).is_ok());
    let error = fail_with("a b c", &limits);
    assert_eq!(error.reason, UnanalysableReason::TooManyWords { max: 2 });
    assert_eq!(error.offset, 4);
}

#[test]
fn payload_too_deep() {
    let limits = ShellLimits::DEFAULT.with_max_payload_depth(1);
    assert!(segment("sh -c 'ls'", &limits).is_ok());
    let error = fail_with("sh -c \"sh -c 'ls'\"", &limits);
    assert_eq!(error.reason, UnanalysableReason::PayloadTooDeep { max: 1 });
    assert_eq!((error.offset, error.payload_depth), (6, 1));
}

#[test]
fn messages_quote_the_input() {
    let error = fail_with("sh -c", &ShellLimits::default());
    assert_eq!(error.reason.to_string(), "`sh -c` without a payload");
    let error = fail_with("sudo -Z\u{e9} rm", &ShellLimits::default());
    assert_eq!(
        error.reason.to_string(),
        "unknown option `-Z\u{e9}` of wrapper `sudo`"
    );
    let error = fail_with("\u{433}m", &ShellLimits::default());
    assert_eq!(
        error.to_string(),
        "unanalysable at byte 0: non-ASCII program `\u{433}m`"
    );
}

#[test]
fn errors_inside_a_payload_point_at_the_payload_word() {
    let error = fail_with("ls; bash -c 'git log > x'", &ShellLimits::default());
    assert_eq!(error.reason, UnanalysableReason::Redirection);
    assert_eq!(error.offset, 12);
    assert_eq!(error.payload_depth, 1);
    assert_eq!(error.payload_offset, 8);
    assert!(error.to_string().contains("payload depth 1"));
}

#[test]
fn every_reason_has_a_test() {
    let all = [
        "too_long",
        "too_many_segments",
        "too_many_words",
        "payload_too_deep",
        "empty_command",
        "empty_segment",
        "dangling_operator",
        "unterminated_quote",
        "trailing_backslash",
        "continuation_in_word",
        "command_substitution",
        "backtick",
        "arithmetic",
        "parameter_expansion",
        "dollar",
        "ansi_c_quote",
        "locale_quote",
        "process_substitution",
        "redirection",
        "heredoc",
        "here_string",
        "subshell",
        "brace_group",
        "brace_expansion",
        "comment",
        "bang",
        "control_character",
        "unicode_space",
        "invisible_character",
        "empty_program",
        "non_ascii_program",
        "glob_in_program",
        "tilde_in_program",
        "equals_in_program",
        "keyword",
        "eval_builtin",
        "assignment_only",
        "assignment_expansion",
        "wrapper_option",
        "wrapper_operand",
        "shell_invocation",
        "unsupported_shell",
    ];
    let limits = [
        "too_long",
        "too_many_segments",
        "too_many_words",
        "payload_too_deep",
    ];
    for code in all {
        assert!(
            EXERCISED.contains(&code) || limits.contains(&code),
            "no test for {code}"
        );
    }
}

#[test]
fn near_twins_are_analysable() {
    for command in [
        "ls",
        "ls\n\n",
        "ls;",
        "ls &",
        "ls &&\n  ls",
        "ls |\n ls",
        "ls \\\n  -l",
        "echo 'a\\\nb'",
        "echo '$(rm -rf t)' \"\\$HOME\" \\$x",
        "echo '`x`' \\`",
        "echo 'a > b' \"<(x)\" \\> \\<",
        "echo '{a,b}' \\{ \\}",
        "echo a#b '#' \\#",
        "echo '!' \"!\"",
        "echo 'caf\u{e9}' caf\u{e9}",
        "rm -rf *",
        "'[' -f x ']'",
        "ls ~/x",
        "git log --format=%H -- a=b",
        "X=1 Y='a b' git log",
        "'X=1' ls",
        "command -v rm",
        "bash script.sh -c x",
        "bash -ec 'ls'",
        "bash -lc ls",
        "bash",
        "fish",
        "sudo -n true",
    ] {
        analysable(command);
    }
}

// ---------------------------------------------------------------- harmless redirections

/// The words and span of the one segment of `command`.
fn one_segment(command: &str) -> (Vec<String>, (usize, usize)) {
    let segments = match segment(command, &ShellLimits::default()) {
        Ok(segments) => segments,
        Err(error) => panic!("`{command}` should be analysable: {error}"),
    };
    let [one] = segments.as_slice() else {
        panic!("`{command}` should be one segment, got {segments:?}");
    };
    (one.words().to_vec(), (one.span().start, one.span().end))
}

/// Every harmless redirection operator with its target (spec/shell-segments.md section 4.2).
const HARMLESS: &[&str] = &[
    ">/dev/null",
    ">>/dev/null",
    ">|/dev/null",
    "1>/dev/null",
    "2>/dev/null",
    "1>>/dev/null",
    "2>>/dev/null",
    "&>/dev/null",
    "&>>/dev/null",
    "</dev/null",
    "0</dev/null",
    "2>&1",
    "1>&2",
    ">&2",
];

#[test]
fn harmless_redirections_are_dropped_from_the_words() {
    for redirection in HARMLESS {
        // With and without blanks between operator and target.
        let spaced = redirection.replacen("/dev/null", " /dev/null", 1);
        let spaced = match spaced.split_once('&') {
            Some((op, digit)) if digit.len() == 1 => format!("{op}& {digit}"),
            _ => spaced,
        };
        for written in [redirection.to_string(), spaced] {
            for (command, span) in [
                (format!("ls -l {written}"), (0, 5)),
                (format!("ls {written} -l"), (0, 6 + written.len())),
                (
                    format!("{written} ls -l"),
                    (written.len() + 1, written.len() + 6),
                ),
                (format!("ls -l {written} {written}"), (0, 5)),
            ] {
                let (words, got) = one_segment(&command);
                assert_eq!(words, ["ls", "-l"], "`{command}`");
                assert_eq!(got, span, "`{command}`");
            }
            // Attached to the word before it (the operator ends that word), except where
            // the word would be read as the descriptor.
            if !written.starts_with(|c: char| c.is_ascii_digit()) {
                let command = format!("ls -l{written}");
                assert_eq!(one_segment(&command).0, ["ls", "-l"], "`{command}`");
            }
        }
    }
}

#[test]
fn harmless_redirections_keep_operators_and_payloads() {
    let segments = segment(
        "make 2>&1 | tee log && ls >/dev/null 2>&1; bash -c 'ls 2>/dev/null'",
        &ShellLimits::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let words: Vec<Vec<String>> = segments.iter().map(|s| s.words().to_vec()).collect();
    assert_eq!(
        words,
        [vec!["make"], vec!["tee", "log"], vec!["ls"], vec!["ls"]]
    );
    let operators: Vec<_> = segments.iter().map(|s| s.operator()).collect();
    use seal_parse::shell::Operator;
    assert_eq!(
        operators,
        [
            Some(Operator::Pipe),
            Some(Operator::And),
            Some(Operator::Semicolon),
            None
        ]
    );
    // A descriptor word that is not only digits is an ordinary word; `2` before `&>` too.
    assert_eq!(one_segment("echo a2>/dev/null").0, ["echo", "a2"]);
    assert_eq!(one_segment("echo '2'>/dev/null").0, ["echo", "2"]);
    assert_eq!(one_segment("echo 2&>/dev/null").0, ["echo", "2"]);
    assert_eq!(one_segment("echo 2 >/dev/null").0, ["echo", "2"]);
}

#[test]
fn other_redirections_are_refused_at_their_operator() {
    for (command, offset) in [
        // Another target.
        ("ls >x", 3),
        ("ls > ~/.bashrc", 3),
        ("ls >/dev/nullx", 3),
        ("ls >/dev/null/", 3),
        ("ls >/dev/nul", 3),
        ("ls >/dev/null\\ ", 3),
        ("ls > \"/dev/null\"", 3),
        ("ls >'/dev/null'", 3),
        ("ls >\\/dev/null", 3),
        ("ls >/dev//null", 3),
        ("ls >/dev/null2>&1", 3),
        ("ls >$x", 3),
        ("ls &>>x", 3),
        ("ls 2>x", 4),
        ("ls <x", 3),
        ("ls >", 3),
        ("ls > \n/dev/null", 3),
        // Another descriptor.
        ("ls 3>/dev/null", 4),
        ("ls 12>/dev/null", 5),
        ("ls 0>/dev/null", 4),
        ("ls 1</dev/null", 4),
        ("ls 2</dev/null", 4),
        ("ls 1>|/dev/null", 4),
        ("ls 2>|/dev/null", 4),
        // Other duplications and operators.
        ("ls 2>&3", 4),
        ("ls >&-", 3),
        ("ls 2>&-", 4),
        ("ls 2>&1-", 4),
        ("ls >&1", 3),
        ("ls 2>&2", 4),
        ("ls 1>&1", 4),
        ("ls 2>& 12", 4),
        ("ls >&/dev/null", 3),
        ("ls <>/dev/null", 3),
        ("ls <&0", 3),
        ("ls 0<&-", 4),
        ("ls 2>>&1", 4),
        // A segment of a redirection alone.
        (">/dev/null", 0),
        ("2>&1", 1),
        ("ls; >/dev/null", 4),
        ("ls && 2>/dev/null", 7),
        (">/dev/null\nls", 0),
        ("ls\n </dev/null", 4),
        (">/dev/null; ls", 0),
    ] {
        check(command, "redirection", offset);
    }
}

/// The description names words as they are: a quote and a backslash in a program word are not
/// escaped here (the one escape for display is the consumer's).
#[test]
fn descriptions_give_words_raw() {
    let error = fail_with("'a\"b\\'* x", &ShellLimits::default());
    assert_eq!(
        error.reason,
        UnanalysableReason::GlobInProgram {
            word: "a\"b\\*".to_owned()
        }
    );
    assert_eq!(error.reason.to_string(), "glob in program `a\"b\\*`");
    let error = fail_with("sudo -Z'\"\\' ls", &ShellLimits::default());
    assert_eq!(
        error.reason.to_string(),
        "unknown option `-Z\"\\` of wrapper `sudo`"
    );
}
