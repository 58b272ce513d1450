//! The enrolled approvers a waiting hook checks a panel's allow against
//! (spec/approval-server.md, "The server").

use std::path::PathBuf;

use seal_serve::client::Settled;
use seal_serve::hookwire::Ask;

use crate::cli::ApprovalWaitFlags;

/// The approvers file: `--approvers`, else [`default_approvers_path`].
pub fn approvers_path(flags: &ApprovalWaitFlags) -> Option<PathBuf> {
    match &flags.approvers {
        Some(path) => Some(PathBuf::from(path)),
        None => default_approvers_path(),
    }
}

/// `~/.config/seal/approvers.json`, when `HOME` is an absolute path.
pub fn default_approvers_path() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|home| home.is_absolute())
        .map(|home| home.join(".config").join("seal").join("approvers.json"))
}

/// Whether the panel's allow of `ask` counts: with no approver enrolled (no file, and the
/// server enrolled none either), the allow stands on the panel's bearer token alone; with any,
/// it needs an assertion this hook can verify.
pub fn verify_allow(
    flags: &ApprovalWaitFlags,
    _ask: &Ask,
    settled: &Settled,
) -> Result<(), String> {
    let enrolled = match approvers_path(flags) {
        Some(path) => match std::fs::read(&path) {
            Ok(bytes) => !bytes.iter().all(u8::is_ascii_whitespace),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => false,
            Err(error) => return Err(format!("the approvers file: {error}")),
        },
        None => false,
    };
    if !enrolled && settled.approvers == 0 {
        return Ok(());
    }
    Err("approvers are enrolled, and this hook cannot verify their assertions".to_owned())
}
