//! `seal render` and `seal render --decode`: the escape-v1 grammar on stdin.

use std::io::Write;

use seal_render::{decode_bytes, escape_bytes, Context};

use crate::args::{Flag, Flags};
use crate::failure::{quoted, Exit, Failure};
use crate::io::{read_stdin, utf8, MAX_STDIN_BYTES};

/// The flags of `seal render`.
pub const FLAGS: &[Flag] = &[Flag::value("context"), Flag::switch("decode")];

/// Runs `seal render`.
pub fn run(flags: &Flags) -> Result<u8, Failure> {
    let context = match flags.value("context").unwrap_or("block") {
        "inline" => Context::Inline,
        "attribute" => Context::Attribute,
        "block" => Context::Block,
        other => {
            return Err(Failure::usage(format!(
                "`--context` is `inline`, `attribute` or `block`, not {}",
                quoted(other)
            )))
        }
    };
    let input = read_stdin(MAX_STDIN_BYTES)?;
    let output: Vec<u8> = if flags.switch("decode") {
        let text = utf8(input, "stdin")?;
        decode_bytes(&text, context)
            .map_err(|error| Failure::new(Exit::Decode, format!("not escape-v1 text: {error}")))?
            .into_owned()
    } else {
        escape_bytes(&input, context).into_owned().into_bytes()
    };
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&output)
        .and_then(|()| stdout.flush())
        .map_err(|error| Failure::new(Exit::Output, format!("cannot write stdout: {error}")))?;
    Ok(Exit::Ok.code())
}
