//! Adversarial inputs of several MiB: every scan completes and its work, counted in steps, stays
//! within a constant times the input length. No wall-clock assertion.

use seal_parse::frame::{scan_with_stats, ScanConfig, ScanError, ScanLimits};

const TARGET: usize = 3 << 20;

/// Steps allowed per input byte (search hits + candidates + characters read).
const STEPS_PER_BYTE: usize = 4;

fn repeat_to(unit: &str) -> String {
    unit.repeat(TARGET / unit.len() + 1)
}

fn unlimited() -> ScanLimits {
    ScanLimits {
        max_frames: usize::MAX,
        max_attributes: usize::MAX,
        max_header_bytes: usize::MAX,
        max_depth: usize::MAX,
    }
}

fn configs() -> Vec<(&'static str, ScanConfig)> {
    let base = ScanConfig::new("channel").unwrap();
    vec![
        ("default", base.clone()),
        ("unlimited", base.clone().with_limits(unlimited())),
        (
            "unlimited+rewrite",
            base.with_rewrite().with_limits(unlimited()),
        ),
    ]
}

fn inputs() -> Vec<(&'static str, String)> {
    let mut quoted = String::from("<channel a=\"");
    quoted.push_str(&repeat_to("x>\u{ff1e}"));
    let mut ignorables = String::from("<");
    ignorables.push_str(&repeat_to("\u{200b}\u{e0041}\u{fe0f}"));
    let mut attributes = String::from("<channel");
    attributes.push_str(&repeat_to(" a=\"1\""));
    let mut spaces = String::from("<channel");
    spaces.push_str(&repeat_to(" \n\t\u{3000}"));
    vec![
        ("lt_run", repeat_to("<")),
        (
            "lookalike_run",
            repeat_to("\u{ff1c}\u{2039}\u{3008}\u{1438}\u{2c2}"),
        ),
        ("unterminated", repeat_to("<channel a=\"1\" ")),
        ("unterminated_value", repeat_to("<channel a=\"")),
        ("deep_nesting", repeat_to("<channel>")),
        ("closes", repeat_to("</channel>")),
        ("rewritten_closes", repeat_to("<\\/channel>")),
        ("name_prefixes", repeat_to("<c<ch<cha<chan<chann<channe")),
        ("ignorable_after_lt", ignorables),
        (
            "ignorable_in_names",
            repeat_to("<c\u{200b}h\u{200b}a\u{200b}n"),
        ),
        ("quoted_value", quoted),
        ("many_attributes", attributes),
        ("spaces_in_tag", spaces),
        (
            "lead_bytes_no_brackets",
            repeat_to("\u{2014}\u{ff41}\u{3001}\u{1401}\u{2c6} "),
        ),
        ("frames", repeat_to("<channel a=\"1\">body</channel>")),
        (
            "mixed",
            repeat_to("< <channel \u{ff1c}CHANNEL\u{200b}/ </channel <\\/chan"),
        ),
    ]
}

#[test]
fn adversarial_inputs_scan_in_linear_steps() {
    for (name, text) in inputs() {
        assert!(text.len() >= TARGET, "{name}");
        for (config_name, config) in configs() {
            let (result, stats) = scan_with_stats(&text, &config);
            let bound = STEPS_PER_BYTE * text.len() + 64;
            eprintln!(
                "{name:>24} {config_name:>18}: {:.3} steps/byte, {} findings or {:?}",
                stats.steps() as f64 / text.len() as f64,
                result.as_ref().map_or(0, Vec::len),
                result.as_ref().err(),
            );
            assert!(stats.steps() <= bound, "{name} {config_name}: {stats:?}");
            if config_name.starts_with("unlimited") {
                assert!(result.is_ok(), "{name} {config_name}: {result:?}");
            }
        }
    }
}

#[test]
fn default_limits_stop_floods_with_named_errors() {
    let config = ScanConfig::new("channel").unwrap();
    let opens = repeat_to("<channel>");
    let (deep, _) = scan_with_stats(&opens, &config);
    assert!(matches!(deep, Err(ScanError::TooDeep { limit: 32, .. })));
    let closes = repeat_to("</channel>");
    let (many, _) = scan_with_stats(&closes, &config);
    assert!(matches!(
        many,
        Err(ScanError::TooManyFindings { limit: 1024, .. })
    ));
}

#[test]
fn frame_free_prose_examines_no_characters() {
    let text = repeat_to("Plain prose about channels, frames and tags; nothing to see here. ");
    let config = ScanConfig::new("channel").unwrap();
    let (result, stats) = scan_with_stats(&text, &config);
    assert_eq!(result.unwrap(), []);
    assert_eq!(stats.steps(), 0);
}
