//! The two patterns read in a command's text, whether it can be segmented or not: fork bombs
//! and output redirected onto a device (spec/destructive-guard.md, section 4).

use super::places::normalize;
use super::{GuardFinding, Operands, Pattern, SAFE_DEVICES};

/// How much of a function body the fork-bomb pattern reads.
pub const MAX_FORK_BODY_BYTES: usize = 256;

/// How much of a redirection target the device-redirect pattern reads (a path longer than
/// this names no device).
pub const MAX_REDIRECT_TARGET_BYTES: usize = 4096;

/// The pattern for fork bombs, found in the command's text.
pub const FORK_BOMB: Pattern = Pattern {
    id: "fork-bomb",
    programs: &[],
    subcommand: &[],
    any_option: &[],
    all_options: &[],
    no_option: &[],
    operands: Operands::Any,
    what: "a function that starts copies of itself without end",
};

/// The pattern for output redirected onto a device, found in the command's text.
pub const DEVICE_REDIRECT: Pattern = Pattern {
    id: "device-redirect",
    programs: &[],
    subcommand: &[],
    any_option: &[],
    all_options: &[],
    no_option: &[],
    operands: Operands::Any,
    what: "output redirected onto a device",
};

/// What the command's text shows, before any segment: a fork bomb, or output redirected onto
/// a device.
pub(super) fn text_finding(command: &str) -> Option<GuardFinding> {
    fork_bomb(command).or_else(|| device_redirect(command))
}

/// A fork bomb in the text, quoted or not (a `bash -c '...'` payload is quoted too): a
/// function (`name()` then `{` or `(`) whose body runs its own name twice with a pipe or `&`
/// between, or once in the background, as `:(){ :|:& };:` does.
fn fork_bomb(text: &str) -> Option<GuardFinding> {
    let mut rest = text;
    while let Some((before, after)) = rest.split_once("()") {
        rest = after;
        // The name is the run of name characters just before `()` (the whole text since the
        // last `()` when every character is one: `)` is not a name character).
        let name = before
            .rsplit_once(|c: char| !u8::try_from(c).is_ok_and(is_name))
            .map_or(before, |(_, name)| name);
        if name.is_empty() {
            continue;
        }
        let body = after.trim_start();
        let (inner, close) = if let Some(inner) = body.strip_prefix('{') {
            (inner, '}')
        } else if let Some(inner) = body.strip_prefix('(') {
            (inner, ')')
        } else {
            continue;
        };
        // A fork bomb's body is short; reading at most this much keeps the search linear (the
        // bound is taken first, so the search for the closing character is bounded too).
        let inner = prefix(inner, MAX_FORK_BODY_BYTES);
        // The body runs to the first closing character, or to the end of what is read.
        let inner = inner.split_once(close).map_or(inner, |(inner, _)| inner);
        let calls = token_count(inner, name);
        if (calls >= 2 && inner.contains(['|', '&'])) || (calls >= 1 && inner.contains('&')) {
            return Some(GuardFinding {
                pattern: &FORK_BOMB,
                form: text.to_owned(),
                path: None,
                place: None,
            });
        }
    }
    None
}

/// `path` normalized, when it names a device whose writing destroys something: below `/dev/`,
/// other than [`SAFE_DEVICES`], a process's own descriptors (`/dev/fd/...`) and terminals
/// (`/dev/pts/...`).
pub(super) fn written_device(path: &str) -> Option<String> {
    let device = normalize(path);
    let harmless = SAFE_DEVICES.contains(&device.as_str())
        || device.starts_with("/dev/fd/")
        || device.starts_with("/dev/pts/");
    (path.starts_with("/dev/") && !harmless).then_some(device)
}

/// Whether `b` can stand in a function name the fork-bomb pattern reads.
fn is_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'.' | b'-')
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn prefix(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.get(..end);
    debug_assert!(cut.is_some(), "`end` is a character boundary within `text`");
    // Reading the whole text instead can only find more.
    cut.unwrap_or(text)
}

/// How often `name` stands alone in `text` (not as part of a longer name).
fn token_count(text: &str, name: &str) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut from = 0;
    while let Some(at) = text
        .get(from..)
        .and_then(|t| t.find(name))
        .map(|i| i + from)
    {
        let end = at + name.len();
        let before = at.checked_sub(1).and_then(|i| bytes.get(i)).copied();
        let after = bytes.get(end).copied();
        if !before.is_some_and(is_name) && !after.is_some_and(is_name) {
            count += 1;
        }
        from = end.max(at + 1);
    }
    count
}

/// Output redirected onto a block device outside quotes (`> /dev/sda`, `>/dev/nvme0n1`).
fn device_redirect(text: &str) -> Option<GuardFinding> {
    let mut quote = None;
    let mut escaped = false;
    let mut previous = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let after_redirect = previous == Some('>');
        previous = Some(c);
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (None, '\\') | (Some('"'), '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            // The first `>` of a run (`>>`, `>|`) reads the target once.
            (None, '>') if after_redirect => {}
            (None, '>') => {
                let target = prefix(chars.as_str(), MAX_REDIRECT_TARGET_BYTES);
                let target = target.trim_start_matches(['>', '|', '&']).trim_start();
                // The target runs to a blank or an operator, or to the end of the text.
                let path = target
                    .split_once(|c: char| c.is_ascii_whitespace() || ";&|)".contains(c))
                    .map_or(target, |(path, _)| path);
                if let Some(device) = written_device(path) {
                    return Some(GuardFinding {
                        pattern: &DEVICE_REDIRECT,
                        form: text.to_owned(),
                        path: Some(device),
                        place: Some("a device"),
                    });
                }
            }
            _ => {}
        }
    }
    None
}
