//! The enrolled approvers a waiting hook checks a panel's allow against
//! (spec/approval-server.md, "The server").

use std::path::PathBuf;

use seal_serve::client::Settled;
use seal_serve::hookwire::Ask;

use seal::webauthn::{approval_challenge, ApproverRegistry, Expected};
use seal_serve::approvers::verify_wire_assertion;

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

/// The approvers file's registry: `None` when the file does not exist.
pub fn load_registry(flags: &ApprovalWaitFlags) -> Result<Option<ApproverRegistry>, String> {
    let Some(path) = approvers_path(flags) else {
        return Ok(None);
    };
    match std::fs::read(&path) {
        Ok(bytes) => ApproverRegistry::parse(&bytes)
            .map(Some)
            .map_err(|error| format!("the approvers file {}: {error}", path.display())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(format!("the approvers file {}: {error}", path.display())),
    }
}

/// The relying party id of a panel origin: its host (`http://localhost:7979` is `localhost`).
pub fn rp_id_of(origin: &str) -> Result<&str, String> {
    let rest = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))
        .ok_or_else(|| format!("the approval origin `{origin}` is not an http(s) origin"))?;
    let host = rest.split(':').next().unwrap_or(rest);
    if host.is_empty() || rest.contains('/') {
        return Err(format!(
            "the approval origin `{origin}` is not a bare origin"
        ));
    }
    Ok(host)
}

/// Whether the panel's allow of `ask` counts. With no approver enrolled (no file or an empty
/// registry) and none enrolled at the server either, the allow stands on the panel's bearer
/// token alone. Otherwise it needs an assertion of an enrolled approver over this exact call:
/// the challenge is computed here from the rpc id the server gave, the session, the approval
/// id, the call's digest and the nonce this hook chose, so a server or a panel cannot bind the
/// assertion to anything else.
pub fn verify_allow(flags: &ApprovalWaitFlags, ask: &Ask, settled: &Settled) -> Result<(), String> {
    let registry = load_registry(flags)?.filter(|registry| !registry.is_empty());
    let Some(registry) = registry else {
        if settled.approvers == 0 {
            return Ok(());
        }
        return Err(format!(
            "the server has {} approver(s) enrolled and this hook's approvers file has none",
            settled.approvers
        ));
    };
    let wire = settled
        .assertion
        .as_ref()
        .ok_or("the allow came without an approver's assertion")?;
    let challenge = approval_challenge(
        settled.rpc_id,
        &ask.session_id,
        &ask.approval_id,
        ask.arguments_digest.as_bytes(),
        &ask.nonce,
    );
    let origin = flags.origin.as_str();
    let expected = Expected {
        challenge,
        origin,
        rp_id: rp_id_of(origin)?,
    };
    verify_wire_assertion(&registry, wire, &expected)
}

#[cfg(test)]
mod tests {
    use super::rp_id_of;

    #[test]
    fn the_relying_party_is_the_bare_origins_host() {
        assert_eq!(rp_id_of("http://localhost:7979"), Ok("localhost"));
        assert_eq!(rp_id_of("https://approve.test"), Ok("approve.test"));
        assert_eq!(rp_id_of("https://approve.test:8443"), Ok("approve.test"));
        for refused in [
            "localhost:7979",
            "ftp://localhost",
            "http://",
            "http://:7979",
            "http://localhost:7979/",
            "http://localhost/panel",
        ] {
            assert!(rp_id_of(refused).is_err(), "{refused}");
        }
    }
}
