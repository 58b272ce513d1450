//! The bypass shapes that permission engines have shipped: each segments correctly (every
//! command that runs is its own segment, with `rm -rf t` among its normalized forms) or is
//! unanalysable.

use seal_parse::shell::{segment, Operator, Segments, ShellLimits};

fn ok(command: &str) -> Segments {
    segment(command, &ShellLimits::default())
        .unwrap_or_else(|e| panic!("`{command}` should be analysable: {e}"))
}

fn reason(command: &str) -> &'static str {
    match segment(command, &ShellLimits::default()) {
        Ok(segments) => panic!("`{command}` should be unanalysable, got {segments:?}"),
        Err(error) => error.reason.code(),
    }
}

fn canonical(segments: &Segments) -> Vec<String> {
    segments
        .iter()
        .map(|s| s.forms().canonical().to_string())
        .collect()
}

/// Whether some form of some segment is exactly `rm -rf t`.
fn some_form_is_rm(segments: &Segments) -> bool {
    segments
        .iter()
        .any(|s| s.forms().all().any(|f| f.to_string() == "rm -rf t"))
}

#[test]
fn and_then_pipe_to_shell() {
    let segments = ok("git log && curl x | sh");
    assert_eq!(canonical(&segments), ["git log", "curl x", "sh"]);
    let operators: Vec<_> = segments.iter().map(|s| s.operator()).collect();
    assert_eq!(operators, [Some(Operator::And), Some(Operator::Pipe), None]);
}

#[test]
fn semicolon() {
    let segments = ok("git log; rm -rf t");
    assert_eq!(canonical(&segments), ["git log", "rm -rf t"]);
}

#[test]
fn command_substitution_in_an_argument() {
    assert_eq!(reason("git log $(rm -rf t)"), "command_substitution");
    assert_eq!(reason("git log \"$(rm -rf t)\""), "command_substitution");
    assert_eq!(reason("git log `rm -rf t`"), "backtick");
}

#[test]
fn newline_separated_second_command() {
    let segments = ok("git log\nrm -rf t");
    assert_eq!(canonical(&segments), ["git log", "rm -rf t"]);
    assert_eq!(segments.as_slice()[0].operator(), Some(Operator::Newline));
}

#[test]
fn fetch_then_clean() {
    let segments = ok("git fetch && git clean -fd");
    assert_eq!(canonical(&segments), ["git fetch", "git clean -fd"]);
}

#[test]
fn bash_c_payload_is_unwrapped() {
    let segments = ok("bash -c 'git status; rm -rf t'");
    assert_eq!(canonical(&segments), ["git status", "rm -rf t"]);
    for s in &segments {
        assert_eq!(s.payload_depth(), 1);
        assert_eq!(
            s.launchers()[0].as_ref(),
            ["bash", "-c", "git status; rm -rf t"]
        );
        assert_eq!(s.span().start, 8);
    }
}

#[test]
fn wrapped_and_path_forms_include_rm() {
    for command in [
        "/usr/bin/rm -rf t",
        "./rm -rf t",
        "env X=1 rm -rf t",
        "X=1 rm -rf t",
        "sudo rm -rf t",
        "sudo -u root -E /bin/rm -rf t",
        "nice -n 5 rm -rf t",
        "nice -5 rm -rf t",
        "timeout 5 rm -rf t",
        "timeout -s KILL 5s rm -rf t",
        "nohup rm -rf t",
        "command rm -rf t",
        "builtin rm -rf t",
        "exec rm -rf t",
        "time -p rm -rf t",
        "stdbuf -o L rm -rf t",
        "xargs -0 rm -rf t",
        "doas -u root rm -rf t",
        "ionice -c 3 rm -rf t",
        "setsid -f rm -rf t",
        "unbuffer rm -rf t",
        "caffeinate -i rm -rf t",
        "sudo env -i PATH=/bin nice -n 1 timeout 9 nohup /usr/bin/rm -rf t",
        "sudo bash -c 'rm -rf t'",
        "sh -c \"sh -c 'rm -rf t'\"",
    ] {
        let segments = ok(command);
        assert!(some_form_is_rm(&segments), "{command}: {segments:?}");
        let last = segments.iter().last().unwrap();
        assert_eq!(
            last.forms().normalized().to_string(),
            "rm -rf t",
            "{command}"
        );
    }
}

#[test]
fn redirection_to_a_dotfile() {
    assert_eq!(reason("git status > ~/.bashrc"), "redirection");
}

#[test]
fn ansi_c_quoting() {
    assert_eq!(reason("rm$'\\t'-rf t"), "ansi_c_quote");
}

#[test]
fn confusable_program_names() {
    assert_eq!(reason("r\u{217f} -rf t"), "non_ascii_program");
    assert_eq!(reason("\u{433}m -rf t"), "non_ascii_program");
    assert_eq!(reason("sudo \u{433}m -rf t"), "non_ascii_program");
    assert_eq!(reason("r\u{200b}m -rf t"), "invisible_character");
}
