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

/// Reads `data` (when UTF-8) as a signed note, a checkpoint body and a proof file: each that is
/// accepted writes back to exactly `data`, and nothing panics.
pub fn tlog_text(data: &[u8]) -> Result<(), String> {
    use crate::tlog::{Checkpoint, ProofFile, SignedNote};
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    if let Ok(note) = SignedNote::parse(text) {
        if note.to_text() != text {
            return Err("an accepted note does not write back to its text".to_owned());
        }
    }
    if let Ok(checkpoint) = Checkpoint::parse(text) {
        if checkpoint.to_text() != text {
            return Err("an accepted checkpoint does not write back to its text".to_owned());
        }
    }
    if let Ok(proof) = ProofFile::parse(text) {
        if proof.to_text() != text {
            return Err("an accepted proof file does not write back to its text".to_owned());
        }
    }
    Ok(())
}

/// Takes sizes, an index and proof hashes from `data` and verifies inclusion and consistency
/// with them (which must return, whatever the numbers); then builds a tree of up to 64 leaves
/// from `data` and checks that its own proofs verify and a flipped bit in one does not.
pub fn tlog_proof(data: &[u8]) -> Result<(), String> {
    use crate::tlog::{leaf_hash, verify_consistency, verify_inclusion, MerkleHash, Tree};
    let number = |at: usize| {
        let mut bytes = [0u8; 8];
        for (slot, byte) in bytes.iter_mut().zip(data.iter().skip(at)) {
            *slot = *byte;
        }
        u64::from_le_bytes(bytes)
    };
    let hashes: Vec<MerkleHash> = data
        .chunks_exact(32)
        .map(|chunk| {
            let mut hash = [0u8; 32];
            hash.copy_from_slice(chunk);
            MerkleHash::from_bytes(hash)
        })
        .collect();
    let root = hashes.first().copied().unwrap_or(MerkleHash::ZERO);
    let _ = verify_inclusion(&root, number(0), number(8), &hashes, &root);
    let _ = verify_consistency(number(16), number(8), &root, &root, &hashes);
    let leaves = data.len().min(64);
    let mut tree = Tree::new();
    for index in 0..leaves {
        tree.push(leaf_hash(data.get(..index).unwrap_or(&[])));
    }
    let size = tree.len();
    if size == 0 {
        return Ok(());
    }
    let index = number(0) % size;
    let proof = tree
        .inclusion_proof(index, size)
        .map_err(|e| e.to_string())?;
    let tree_root = tree.root(size).map_err(|e| e.to_string())?;
    let leaf = tree.leaf(index).copied().ok_or("leaf missing")?;
    verify_inclusion(&leaf, index, size, &proof, &tree_root)
        .map_err(|e| format!("a tree's own inclusion proof fails: {e}"))?;
    if let Some((first, rest)) = proof.split_first() {
        let mut bytes = *first.as_bytes();
        if let Some(byte) = bytes.first_mut() {
            *byte ^= 1;
        }
        let mut broken = vec![MerkleHash::from_bytes(bytes)];
        broken.extend_from_slice(rest);
        if verify_inclusion(&leaf, index, size, &broken, &tree_root).is_ok() {
            return Err("an inclusion proof with a flipped bit verifies".to_owned());
        }
    }
    let old = 1 + number(8) % size;
    let consistency = tree
        .consistency_proof(old, size)
        .map_err(|e| e.to_string())?;
    let old_root = tree.root(old).map_err(|e| e.to_string())?;
    verify_consistency(old, size, &old_root, &tree_root, &consistency)
        .map_err(|e| format!("a tree's own consistency proof fails: {e}"))
}

/// Reads `data` as a log record: an accepted record writes back to exactly `data`.
pub fn log_record(data: &[u8]) -> Result<(), String> {
    if let Ok(record) = crate::LogRecord::from_bytes(data) {
        if record.to_bytes() != data {
            return Err("an accepted log record does not write back to its bytes".to_owned());
        }
    }
    Ok(())
}
