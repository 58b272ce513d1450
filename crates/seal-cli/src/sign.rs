//! `seal sign`: a signed frame around the body read from stdin.

use ring::rand::{SecureRandom, SystemRandom};
use seal::{FrameRefusal, FrameSigner, FRAME_ID_ATTRIBUTE};

use crate::cli::SignArgs;
use crate::failure::{quoted, Exit, Failure};
use crate::io::{now, read_stdin, utf8, MAX_STDIN_BYTES};
use crate::keys::{Secret, SecretKeys};

/// Runs `seal sign`.
pub fn run(args: &SignArgs) -> Result<u8, Failure> {
    let keys = SecretKeys::load(&args.keys)?;
    let key_id = args.key_id.as_str();
    let conversation = args.conversation.as_str();
    let element = args.element.as_str();
    let mut attributes: Vec<(String, String)> = Vec::new();
    for pair in &args.attr {
        let Some((name, value)) = pair.split_once('=') else {
            return Err(Failure::usage(format!(
                "`--attr` wants NAME=VALUE, not {}",
                quoted(pair)
            )));
        };
        attributes.push((name.to_owned(), value.to_owned()));
    }
    if !attributes
        .iter()
        .any(|(name, _)| name == FRAME_ID_ATTRIBUTE)
    {
        attributes.push((FRAME_ID_ATTRIBUTE.to_owned(), fresh_id()?));
    }
    let now = now(args.now.as_deref())?;
    let body = utf8(read_stdin(MAX_STDIN_BYTES)?, "stdin")?;
    let hmac;
    let ed25519;
    let signer = match &keys.get(key_id)?.secret {
        Secret::Hmac { .. } => {
            hmac = keys.hmac_key(key_id)?;
            FrameSigner::new(key_id, hmac.as_signing_key(), conversation, now)
        }
        Secret::Ed25519 { .. } => {
            ed25519 = keys.approver_key(key_id)?;
            FrameSigner::new(key_id, ed25519.as_signing_key(), conversation, now)
        }
    }
    .map_err(cannot_sign)?;
    let pairs: Vec<(&str, &str)> = attributes
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    if args.footer {
        let footer = signer.sign_footer(&pairs, &body).map_err(cannot_sign)?;
        crate::io::emit(&format!("{body}{footer}\n"))?;
        return Ok(Exit::Ok.code());
    }
    let frame = if args.raw {
        signer.sign_raw(element, &pairs, &body)
    } else {
        signer.sign(element, &pairs, &body)
    }
    .map_err(cannot_sign)?;
    outln!("{frame}");
    Ok(Exit::Ok.code())
}

/// The usage failure for a frame the signer refused, naming why.
fn cannot_sign(error: FrameRefusal) -> Failure {
    Failure::usage(format!("cannot sign: {error}"))
}

/// A fresh frame id: 16 random bytes in lowercase hex.
fn fresh_id() -> Result<String, Failure> {
    let mut bytes = [0u8; 16];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| Failure::new(Exit::Internal, "the system random generator failed"))?;
    Ok(hex::encode(bytes))
}
