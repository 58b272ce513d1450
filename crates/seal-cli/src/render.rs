//! `seal render` and `seal render --decode`: the escape-v1 grammar on stdin.

use seal::render::{decode_bytes, escape_bytes, Context};

use crate::cli::{RenderArgs, RenderContext};
use crate::failure::{Exit, Failure};
use crate::io::{read_stdin, utf8, MAX_STDIN_BYTES};

/// Runs `seal render`.
pub fn run(args: &RenderArgs) -> Result<u8, Failure> {
    let context = match args.context {
        RenderContext::Inline => Context::Inline,
        RenderContext::Attribute => Context::Attribute,
        RenderContext::Block => Context::Block,
    };
    let input = read_stdin(MAX_STDIN_BYTES)?;
    let output: Vec<u8> = if args.decode {
        let text = utf8(input, "stdin")?;
        decode_bytes(&text, context)
            .map_err(|error| Failure::new(Exit::Decode, format!("not escape-v1 text: {error}")))?
            .into_owned()
    } else {
        escape_bytes(&input, context).into_owned().into_bytes()
    };
    crate::io::emit_bytes(&output)?;
    Ok(Exit::Ok.code())
}
