//! Loading the trust store: a signed store envelope (spec/trust-store.md section 8), accepted as
//! the operator's pinned first document, bound to the HMAC secrets of the key file.

use seal_verify::store::{
    accept_initial, MemoryTrustStore, SignedStoreDocument, StoreLimits, TrustedDocument,
};
use seal_verify::{CompensatingControls, UnixTime};

use crate::failure::{quoted, Failure};
use crate::io::{read_file, MAX_FILE_BYTES};
use crate::keys::SecretKeys;

/// A store file parsed and accepted.
pub struct LoadedStore {
    /// The accepted document.
    pub trusted: TrustedDocument,
}

/// Reads the envelope at `path` and accepts it at `now` (not expired, signed by its own
/// threshold of store-update keys).
pub fn load(path: &str, now: UnixTime) -> Result<LoadedStore, Failure> {
    let signed = parse(path)?;
    let trusted = accept_initial(&signed, now).map_err(|error| {
        Failure::keys(format!(
            "trust store {} not accepted: {error}",
            quoted(path)
        ))
    })?;
    Ok(LoadedStore { trusted })
}

/// Reads and parses the envelope at `path` without accepting it.
pub fn parse(path: &str) -> Result<SignedStoreDocument, Failure> {
    let bytes = read_file(path, MAX_FILE_BYTES, "trust store")?;
    SignedStoreDocument::parse(&bytes, &StoreLimits::default())
        .map_err(|error| Failure::keys(format!("trust store {}: {error}", quoted(path))))
}

/// The in-memory store of `loaded`, with the HMAC secrets of `keys` bound. Per-conversation
/// subkeys are always on; the replay set counts as on when a seen-id file is in use.
pub fn bind(
    loaded: &LoadedStore,
    keys: Option<&SecretKeys>,
    replay_set: bool,
) -> Result<MemoryTrustStore, Failure> {
    let secrets = keys.map(SecretKeys::hmac_secrets).unwrap_or_default();
    let controls = CompensatingControls {
        per_conversation_subkeys: true,
        replay_set,
    };
    MemoryTrustStore::from_trusted(&loaded.trusted, &secrets, controls)
        .map_err(|error| Failure::keys(format!("key file does not fit the trust store: {error}")))
}
