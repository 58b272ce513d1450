//! `seal scan`: verifies every frame in the text on stdin and prints the text unchanged followed
//! by the alarms (or, with `--json`, the operator's report).

use std::collections::BTreeSet;

use crate::args::{Flag, Flags};
use crate::failure::{Exit, Failure};
use crate::io::{emit, now, read_stdin, utf8, MAX_STDIN_BYTES};
use crate::keys::SecretKeys;
use crate::seen;
use crate::verify::{inbound_seal, report_json, verify_text, FrameOptions, DEFAULT_ELEMENT};

/// The flags of `seal scan`.
pub const FLAGS: &[Flag] = &[
    Flag::value("store"),
    Flag::value("keys"),
    Flag::value("conversation"),
    Flag::value("element"),
    Flag::value("seen"),
    Flag::switch("json"),
    Flag::value("now"),
];

/// Runs `seal scan`.
pub fn run(flags: &Flags) -> Result<u8, Failure> {
    let store_path = flags
        .or_env("store", "SEAL_STORE")
        .ok_or_else(|| Failure::usage("missing required flag `--store` (or `SEAL_STORE`)"))?;
    let keys_path = flags.or_env("keys", "SEAL_KEYS");
    let conversation = flags
        .or_env("conversation", "SEAL_CONVERSATION")
        .ok_or_else(|| {
            Failure::usage("missing required flag `--conversation` (or `SEAL_CONVERSATION`)")
        })?;
    let seen_path = flags.or_env("seen", "SEAL_SEEN");
    let options = FrameOptions {
        element: flags
            .or_env("element", "SEAL_ELEMENT")
            .unwrap_or_else(|| DEFAULT_ELEMENT.to_owned()),
        off: verification_off(),
    };
    let now = now(flags.value("now"))?;
    let text = utf8(read_stdin(MAX_STDIN_BYTES)?, "stdin")?;
    let keys = keys_path.as_deref().map(SecretKeys::load).transpose()?;
    let seal = inbound_seal(&store_path, keys.as_ref(), &options, now)?;
    let seen_ids = match &seen_path {
        Some(path) => seen::load(path)?,
        None => BTreeSet::new(),
    };
    let inbound = verify_text(&seal, &conversation, now, &seen_ids, &text)?;
    let output = if flags.switch("json") {
        let mut json = report_json(&inbound).to_text();
        json.push('\n');
        json
    } else {
        let mut out = text;
        out.push_str(inbound.alarms());
        if !inbound.alarms().is_empty() {
            out.push('\n');
        }
        out
    };
    let tainted = inbound.report().is_tainted();
    let new_ids = inbound.report().new_ids().to_vec();
    if let Some(path) = &seen_path {
        seen::record(path, seen_ids, &new_ids)?;
    }
    emit(&output)?;
    Ok(if tainted { Exit::Tainted } else { Exit::Ok }.code())
}

/// Whether `SEAL_VERIFY=off` turns verification off (each frame then gets the visible
/// `verification_off` notice, and `seal doctor` reports it).
pub fn verification_off() -> bool {
    std::env::var("SEAL_VERIFY").is_ok_and(|value| value == "off")
}
