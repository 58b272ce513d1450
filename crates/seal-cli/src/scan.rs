//! `seal scan`: verifies every frame in the text on stdin and prints the text unchanged followed
//! by the alarms (or, with `--json`, the operator's report).

use crate::cli::ScanArgs;
use crate::failure::{Exit, Failure};
use crate::io::{emit, now, read_stdin, utf8, MAX_STDIN_BYTES};
use crate::keys::SecretKeys;
use crate::state;
use crate::verify::{inbound_verifier, report_json, verify_text, FrameOptions};

/// Runs `seal scan`.
pub fn run(args: &ScanArgs) -> Result<u8, Failure> {
    let frames = &args.frames;
    let store_path = frames
        .store
        .as_deref()
        .ok_or_else(|| Failure::usage("missing required flag `--store` (or `SEAL_STORE`)"))?;
    let conversation = args.conversation.as_deref().ok_or_else(|| {
        Failure::usage("missing required flag `--conversation` (or `SEAL_CONVERSATION`)")
    })?;
    let options = FrameOptions::of(frames);
    let now = now(frames.now.as_deref())?;
    let text = utf8(read_stdin(MAX_STDIN_BYTES)?, "stdin")?;
    let keys = frames.keys.as_deref().map(SecretKeys::load).transpose()?;
    let verifier = inbound_verifier(store_path, keys.as_ref(), &options, now)?;
    let replay = state::open(frames, &options, now)?;
    let inbound = verify_text(&verifier, conversation, now, &replay, &text, options.footer)?;
    let output = if args.json {
        let mut json = report_json(&inbound).to_text();
        json.push('\n');
        json
    } else {
        let mut out = String::with_capacity(text.len() + inbound.alarms().len() + 1);
        out.push_str(&text);
        out.push_str(inbound.alarms());
        if !inbound.alarms().is_empty() {
            out.push('\n');
        }
        out
    };
    let tainted = inbound.report().is_tainted();
    emit(&output)?;
    Ok(if tainted { Exit::Tainted } else { Exit::Ok }.code())
}

/// Whether `SEAL_VERIFY=off` turns verification off (each frame then gets the visible
/// `verification_off` notice, and `seal doctor` reports it).
pub fn verification_off() -> bool {
    std::env::var("SEAL_VERIFY").is_ok_and(|value| value == "off")
}
