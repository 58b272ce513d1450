//! A plain segment, as Claude Code reads one before its default mode allows it: no launcher,
//! not in the background, and only the leading assignments it strips.

use seal_parse::shell::{Operator, SegmentRef};

use super::number;

/// A segment with no launcher, not in the background, and only assignments Claude Code
/// strips.
pub(super) fn plain_segment(segment: &SegmentRef<'_>) -> bool {
    segment.payload_depth() == 0
        && segment.launchers().next().is_none()
        && segment.operator() != Some(Operator::Background)
        && segment
            .words()
            .take(segment.assignments())
            .all(safe_assignment)
}

/// Environment variables Claude Code 2.1.332 strips from before a command when it matches
/// rules and its read-only set (each observed; others, `PATH`, `LD_PRELOAD`, `NODE_OPTIONS`
/// among them, make the command ask).
pub const SAFE_ENV_VARS: &[&str] = &[
    "NODE_ENV",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "GO111MODULE",
    "GOEXPERIMENT",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTEST_DEBUG",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "LANGUAGE",
    "TERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TZ",
    "CI",
    "ANTHROPIC_API_KEY",
    "COLORTERM",
    "LC_TIME",
];

/// Whether `assignment` (`NAME=value`, quotes removed) is one Claude Code strips: a name of
/// [`SAFE_ENV_VARS`] with a value of letters, digits and `-_./:` (not empty); `COLUMNS` and
/// `LINES` with digits; `LANG`, `LC_ALL`, `LC_CTYPE` with a locale name (`C`, `POSIX`,
/// `C.UTF-8`, `xx_XX.UTF-8`). The caller checks the value was not quoted.
pub(in crate::rules) fn safe_assignment(assignment: &str) -> bool {
    let Some((name, value)) = assignment.split_once('=') else {
        return false;
    };
    if value.is_empty() {
        return false;
    }
    match name {
        "COLUMNS" | "LINES" => number(value),
        "LANG" | "LC_ALL" | "LC_CTYPE" => locale(value),
        _ => {
            SAFE_ENV_VARS.contains(&name)
                && value.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b':')
                })
        }
    }
}

/// `C`, `POSIX`, `C.UTF-8`, `C.utf8`, or `ll_CC.UTF-8` / `ll_CC.utf8`.
fn locale(value: &str) -> bool {
    if matches!(value, "C" | "POSIX" | "C.UTF-8" | "C.utf8") {
        return true;
    }
    let Some(name) = value
        .strip_suffix(".UTF-8")
        .or_else(|| value.strip_suffix(".utf8"))
    else {
        return false;
    };
    let bytes = name.as_bytes();
    bytes.len() == 5
        && bytes.get(2) == Some(&b'_')
        && bytes.iter().take(2).all(u8::is_ascii_lowercase)
        && bytes.iter().skip(3).all(u8::is_ascii_uppercase)
}
