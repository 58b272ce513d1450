//! Property checks for fuzz targets, also run by the ordinary test suite. Each returns `Err`
//! naming the property an input violates.

use seal_parse::json::{canonicalize, JsonLimits};

use crate::log::{verify_log, Log};
use crate::manifest::{Manifest, ManifestLimits};
use crate::pae::{pae, unpae};
use crate::path::canonical_path;

/// Reads `data` as a stored manifest and, when accepted, checks: the canonical form of `data`
/// is the manifest's canonical bytes; reading those bytes gives the same manifest; the
/// disclosure hash is the SHA-256 of those bytes.
pub fn manifest_json(data: &[u8]) -> Result<(), String> {
    let limits = ManifestLimits::default();
    let Ok(manifest) = Manifest::from_json(data, &limits) else {
        return Ok(());
    };
    let bytes = manifest.canonical_bytes();
    let canonical = canonicalize(data, &limits.json)
        .map_err(|e| format!("accepted manifest is not canonical-profile json: {e}"))?;
    if canonical.as_bytes() != bytes.as_slice() {
        return Err("canonical form of the input differs from the manifest's bytes".to_owned());
    }
    let again = Manifest::from_json(&bytes, &limits)
        .map_err(|e| format!("canonical bytes of an accepted manifest rejected: {e}"))?;
    if again != manifest {
        return Err("re-reading the canonical bytes gives another manifest".to_owned());
    }
    if manifest.disclosure_hash().as_bytes() != &canonical.sha256() {
        return Err("disclosure hash is not the digest of the canonical bytes".to_owned());
    }
    Ok(())
}

/// Checks PAE both ways on `data`: if `data` reads as a PAE, encoding its pieces gives `data`
/// back; and cutting `data` into pieces at every byte equal to its first byte, then encoding
/// and reading back, gives the same pieces.
pub fn pae_roundtrip(data: &[u8]) -> Result<(), String> {
    if let Some(pieces) = unpae(data) {
        if pae(&pieces) != data {
            return Err("re-encoding the pieces of a PAE changes its bytes".to_owned());
        }
    }
    let pieces: Vec<&[u8]> = match data.first() {
        Some(&cut) => data.split(|&b| b == cut).collect(),
        None => Vec::new(),
    };
    let encoded = pae(&pieces);
    if unpae(&encoded).as_deref() != Some(pieces.as_slice()) {
        return Err("reading back an encoding does not give its pieces".to_owned());
    }
    Ok(())
}

/// Treats `data` as record bytes: `Log::append_canonical` accepts it exactly when it is the
/// canonical JSON of an object with a string `_type`, and a log built from it verifies to its
/// head.
pub fn log_append(data: &[u8]) -> Result<(), String> {
    let mut log = Log::new();
    let accepted = log.append_canonical(data).is_ok();
    let canonical = canonicalize(data, &JsonLimits::DEFAULT).is_ok_and(|c| c.as_bytes() == data);
    if accepted && !canonical {
        return Err("a non-canonical record was appended".to_owned());
    }
    if accepted {
        log.append_canonical(data)
            .map_err(|e| format!("second append of the same record refused: {e}"))?;
        match verify_log(log.entries()) {
            Ok(head) if head == log.head() => {}
            other => return Err(format!("a built log does not verify: {other:?}")),
        }
    }
    Ok(())
}

/// Canonicalizes `data` (as UTF-8, invalid sequences replaced) as a path and, when accepted,
/// checks: the result is its own canonical form; it has no empty, `.` or `..` segment, no
/// backslash and no leading `/`; inserting `./` after every `/` names the same place.
pub fn path(data: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    let Ok(path) = canonical_path(&text) else {
        return Ok(());
    };
    let spelled = path.as_str();
    match canonical_path(spelled) {
        Ok(again) if again == path => {}
        other => {
            return Err(format!(
                "canonical path `{spelled}` is not stable: {other:?}"
            ))
        }
    }
    if spelled.starts_with('/') || spelled.contains('\\') {
        return Err(format!(
            "canonical path `{spelled}` is absolute or has a backslash"
        ));
    }
    if spelled
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return Err(format!(
            "canonical path `{spelled}` has a non-canonical segment"
        ));
    }
    let dotted = spelled.replace('/', "/./");
    match canonical_path(&dotted) {
        Ok(same) if same == path => Ok(()),
        other => Err(format!("`{dotted}` does not name `{spelled}`: {other:?}")),
    }
}
