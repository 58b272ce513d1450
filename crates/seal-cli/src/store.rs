//! Trust-store files: reading the signed envelope of spec/trust-store.md section 8 for `doctor`
//! (parsed strictly; acceptance and binding are the facade's, in `verify`), `seal store sign`
//! and `seal store rotate`.

use seal::store_document::{SignedStoreDocument, StoreLimits};
use seal::{check_rotation, sign_store_document, sign_store_rotation};

use crate::cli::{StoreRotateArgs, StoreSignArgs};
use crate::failure::{quoted, Exit, Failure};
use crate::io::{check_absent, emit, emit_bytes, now, read_file, write_atomic, MAX_FILE_BYTES};
use crate::keys::SecretKeys;

/// Reads and parses the envelope at `path` without accepting it.
pub fn parse(path: &str) -> Result<SignedStoreDocument, Failure> {
    let bytes = read_file(path, MAX_FILE_BYTES, "trust store")?;
    SignedStoreDocument::parse(&bytes, &StoreLimits::default())
        .map_err(|error| Failure::keys(format!("trust store {}: {error}", quoted(path))))
}

/// `seal store sign`: the envelope of `--document` signed by each `--key-id`.
pub fn run_sign(args: &StoreSignArgs) -> Result<u8, Failure> {
    let document = read_file(&args.document, MAX_FILE_BYTES, "store document")?;
    let keys = SecretKeys::load(&args.keys)?;
    let signers = args
        .key_id
        .iter()
        .map(|id| Ok((id.as_str(), keys.approver_key(id)?)))
        .collect::<Result<Vec<_>, Failure>>()?;
    let borrowed: Vec<(&str, &seal::ApproverKey)> =
        signers.iter().map(|(id, key)| (*id, key)).collect();
    let signed = match &args.current {
        Some(current) => {
            let current = read_file(current, MAX_FILE_BYTES, "trust store")?;
            sign_store_rotation(&document, &current, &borrowed)
        }
        None => sign_store_document(&document, &borrowed),
    };
    let mut envelope = signed.map_err(|error| {
        Failure::keys(format!(
            "store document {}: {error}",
            quoted(&args.document)
        ))
    })?;
    envelope.push(b'\n');
    match &args.out {
        Some(out) => {
            check_absent(out, args.force)?;
            write_atomic(out, &envelope, Some(0o644))?;
            Ok(Exit::Ok.code())
        }
        None => {
            emit_bytes(&envelope)?;
            Ok(Exit::Ok.code())
        }
    }
}

/// `seal store rotate`: checks the rotation from `--store` to `--next`, then (unless `--check`)
/// puts `--next` in place of `--store` atomically.
pub fn run_rotate(args: &StoreRotateArgs) -> Result<u8, Failure> {
    let now = now(args.now.as_deref())?;
    let current = read_file(&args.store, MAX_FILE_BYTES, "trust store")?;
    let next = read_file(&args.next, MAX_FILE_BYTES, "next trust store")?;
    let rotation = check_rotation(&current, &next, now).map_err(|error| {
        Failure::keys(format!(
            "trust store {} not rotated to {}: {error}",
            quoted(&args.store),
            quoted(&args.next)
        ))
    })?;
    if !args.check {
        write_atomic(&args.store, &next, Some(0o644))?;
    }
    emit(&format!(
        "trust store {}: {} from version {} to version {} (expires {})\n",
        quoted(&args.store),
        if args.check { "may rotate" } else { "rotated" },
        rotation.from_version,
        rotation.to_version,
        rotation.expires.seconds()
    ))?;
    Ok(Exit::Ok.code())
}
