//! Adversarial commands of several MiB: every one completes and its work, counted in steps,
//! stays within a constant times the input length per payload level. No wall-clock assertion.

use seal_parse::shell::fuzz_check::STEPS_PER_BYTE_PER_LEVEL;
use seal_parse::shell::{quote_word, segment_with_stats, ShellLimits};

const TARGET: usize = 3 << 20;

fn repeat_to(unit: &str, target: usize) -> String {
    unit.repeat(target / unit.len() + 1)
}

fn huge(depth: usize) -> ShellLimits {
    ShellLimits::DEFAULT
        .with_max_bytes(usize::MAX)
        .with_max_segments(usize::MAX)
        .with_max_words(usize::MAX)
        .with_max_payload_depth(depth)
}

/// `bash -c` nested by re-quoting until the text passes the target length.
fn nested_payload(target: usize) -> String {
    let mut text = String::from("rm -rf t");
    while text.len() < target {
        text = format!("bash -c {}", quote_word(&text));
    }
    text
}

fn inputs() -> Vec<(&'static str, String, bool)> {
    inputs_of(TARGET)
}

/// The adversarial commands, each at least `target` bytes long.
fn inputs_of(target: usize) -> Vec<(&'static str, String, bool)> {
    let repeat_to = |unit: &str| repeat_to(unit, target);
    // (name, command, analysable with huge(3))
    let mut sudo = repeat_to("sudo -u root -E ");
    sudo.push_str("rm -rf t");
    let mut nohup = repeat_to("nohup ");
    nohup.push_str("rm");
    let mut env = String::from("env ");
    env.push_str(&repeat_to("X=1 "));
    env.push_str("rm");
    let mut cluster = String::from("sudo -");
    cluster.push_str(&repeat_to("EHn"));
    cluster.push_str(" rm");
    let mut unterminated = String::from("ls '");
    unterminated.push_str(&repeat_to("x;y&&z"));
    let mut unterminated_double = String::from("ls \"");
    unterminated_double.push_str(&repeat_to("\\\"\\$\\\\'"));
    let mut payload_siblings = repeat_to("bash -c 'ls; git log' && ");
    payload_siblings.push_str("ls");
    let mut in_payload = String::from("sh -c '");
    in_payload.push_str(&repeat_to("sh -c \"ls; ls\"; "));
    in_payload.push_str("ls'");
    let mut words = String::from("echo");
    words.push_str(&repeat_to(" 'a'\"b\"\\c"));
    vec![
        ("separators", repeat_to("a;"), true),
        ("operators", repeat_to("a && b || c | d |& e & f\n"), true),
        ("quotes", repeat_to("ls 'a b' \"c d\"; "), true),
        ("words", words, true),
        (
            "non_ascii_words",
            repeat_to("echo \u{e9}\u{1f600} '\u{433}';"),
            true,
        ),
        ("unterminated_single", unterminated, false),
        ("unterminated_double", unterminated_double, false),
        ("backslashes", repeat_to("\\"), false),
        ("escaped_spaces", repeat_to("ls\\ \\;"), true),
        ("continuations", repeat_to("ls \\\n"), true),
        ("sudo_chain", sudo, true),
        ("nohup_chain", nohup, true),
        ("env_assignments", env, true),
        ("option_cluster", cluster, true),
        ("payload_siblings", payload_siblings, true),
        ("payloads_in_payload", in_payload, true),
        ("nested_payload", nested_payload(target), false),
        ("dollars_late", repeat_to("ls x;") + "$x", false),
        ("open_parens", repeat_to("("), false),
        ("empty_segments", repeat_to(";"), false),
    ]
}

#[test]
fn adversarial_commands_take_linear_work() {
    for depth in [3, 8] {
        let limits = huge(depth);
        for (name, command, analysable) in inputs() {
            if depth != 3 && !name.contains("payload") {
                continue;
            }
            assert!(command.len() >= TARGET, "{name}");
            let (result, stats) = segment_with_stats(&command, &limits);
            let bound = STEPS_PER_BYTE_PER_LEVEL * (depth + 1) * (command.len() + 1);
            assert!(
                stats.steps() <= bound,
                "{name}: {} steps for {} bytes (bound {bound})",
                stats.steps(),
                command.len()
            );
            if depth == 3 {
                assert_eq!(
                    result.is_ok(),
                    analysable,
                    "{name}: {:?}",
                    result.as_ref().err()
                );
            }
        }
    }
}

#[test]
fn default_limits_stop_early_on_huge_commands() {
    for (name, command, _) in inputs() {
        let (result, stats) = segment_with_stats(&command, &ShellLimits::default());
        let error = result.expect_err(name);
        assert_eq!(error.reason.code(), "too_long", "{name}");
        assert_eq!(stats.steps(), 0, "{name}");
    }
}

#[test]
fn step_count_grows_with_the_input() {
    // The counter is real: doubling the input roughly doubles the steps.
    let limits = huge(3);
    let small = "ls 'a b'; ".repeat(1000);
    let large = "ls 'a b'; ".repeat(2000);
    let (_, s) = segment_with_stats(&small, &limits);
    let (_, l) = segment_with_stats(&large, &limits);
    assert!(s.steps() >= small.len() / 2);
    assert!(l.steps() >= 2 * s.steps() - 10 && l.steps() <= 2 * s.steps() + 10);
}

#[test]
fn ten_times_the_input_takes_at_most_eleven_times_the_steps() {
    // Each adversarial shape at about 300 KiB and at ten times that: the steps of the
    // segmentation (forms included) grow at most 11x. A re-quoted payload grows by doubling,
    // so its two sizes are compared per byte instead.
    const SMALL: usize = TARGET / 10;
    let limits = huge(3);
    for ((name, small), (_, large)) in inputs_of(SMALL)
        .into_iter()
        .map(|(name, text, _)| (name, text))
        .zip(
            inputs_of(10 * SMALL)
                .into_iter()
                .map(|(name, text, _)| (name, text)),
        )
    {
        let (_, s) = segment_with_stats(&small, &limits);
        let (_, l) = segment_with_stats(&large, &limits);
        let ratio = large.len() as f64 / small.len() as f64;
        assert!(
            ratio >= 9.9 || name == "nested_payload",
            "{name}: sizes {ratio}"
        );
        assert!(
            grows_linearly((small.len(), s.steps()), (large.len(), l.steps())),
            "{name}: {} steps for {} bytes, then {} steps for {} bytes",
            s.steps(),
            small.len(),
            l.steps(),
            large.len()
        );
        assert!(
            s.steps() > 0 || name.starts_with("empty"),
            "{name}: no steps counted"
        );
    }
}

/// Whether the steps per byte at the larger size are at most 11/10 of those at the smaller.
fn grows_linearly(small: (usize, usize), large: (usize, usize)) -> bool {
    10 * large.1 * small.0 <= 11 * small.1 * large.0
}

#[test]
fn negative_control_quadratic_work_is_caught() {
    // 10x the input with 100x (or 12x) the steps fails the check; 10x and 11x pass.
    assert!(!grows_linearly((1000, 4000), (10_000, 400_000)));
    assert!(!grows_linearly((1000, 4000), (10_000, 48_000)));
    assert!(grows_linearly((1000, 4000), (10_000, 44_000)));
    assert!(grows_linearly((1000, 4000), (10_000, 40_000)));
}
