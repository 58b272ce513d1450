//! Signed manifest approvals: `seal manifest approve` signs a manifest's disclosure hash with an
//! approver key (the facade's `SignedApproval`), and the approval file it writes is checked by
//! `seal manifest verify --approval` against the trust store.

use seal::{Sha256Digest, SignedApproval, UnixTime};

use crate::cli::ManifestApproveArgs;
use crate::failure::{quoted, Exit, Failure};
use crate::io::{now, read_file, utf8, write_atomic, MAX_FILE_BYTES};
use crate::json_in;
use crate::json_out::J;
use crate::keys::SecretKeys;
use crate::manifest::load_manifest;

/// The `type` of an approval file.
pub const APPROVAL_TYPE: &str = "seal/manifest-approval/v1";

/// How long an approval is valid when `--valid-for` is not given: one hour.
pub const DEFAULT_VALID_SECONDS: u64 = 3600;

/// Runs `seal manifest approve`.
pub fn run(args: &ManifestApproveArgs) -> Result<u8, Failure> {
    let manifest = load_manifest(&args.manifest)?;
    let keys = SecretKeys::load(&args.keys)?;
    let key_id = args.key_id.as_str();
    let approval_id = args.approval_id.as_str();
    let out = args.out.as_str();
    let valid_for = args.valid_for;
    let now = now(args.now.as_deref())?;
    let not_after = UnixTime(now.seconds().saturating_add(valid_for));
    let key = keys.approver_key(key_id)?;
    let approval = key
        .sign_approval(key_id, approval_id, not_after, manifest.disclosure_hash())
        .map_err(|error| Failure::usage(format!("cannot approve: {error}")))?;
    let mut text = approval_json(&approval).to_text();
    text.push('\n');
    write_atomic(out, text.as_bytes(), Some(0o644))?;
    crate::audit::sink::record_manifest(
        &args.log,
        seal::log::LogEventType::ManifestApproved,
        &manifest,
        Some(approval_id),
        None,
    )?;
    outln!(
        "approved {} as `{approval_id}` by `{key_id}` until {not_after}; wrote {out}",
        manifest.disclosure_hash().to_hex()
    );
    Ok(Exit::Ok.code())
}

/// The approval file's JSON.
pub fn approval_json(approval: &SignedApproval) -> J {
    J::Obj(vec![
        ("type", J::str(APPROVAL_TYPE)),
        ("key_id", J::str(approval.key_id())),
        ("approval_id", J::str(approval.approval_id())),
        ("not_after", J::Num(approval.not_after().seconds())),
        (
            "disclosure_hash",
            J::str(approval.disclosure_hash().to_hex()),
        ),
        ("sig", J::str(approval.signature())),
    ])
}

/// Reads an approval file (checked only when verified before spawn).
pub fn load_approval(path: &str) -> Result<SignedApproval, Failure> {
    let text = utf8(read_file(path, MAX_FILE_BYTES, "approval")?, "approval")?;
    let what = format!("approval {}", quoted(path));
    let object = json_in::object(text.as_bytes(), &what)?;
    json_in::only(
        &object,
        &[
            "type",
            "key_id",
            "approval_id",
            "not_after",
            "disclosure_hash",
            "sig",
        ],
        &what,
    )?;
    if json_in::string(&object, "type", &what)? != APPROVAL_TYPE {
        return Err(Failure::input(format!(
            "{what}: `type` is not `{APPROVAL_TYPE}`"
        )));
    }
    let hash = json_in::string(&object, "disclosure_hash", &what)?;
    let hash = Sha256Digest::from_hex(hash)
        .map_err(|_| Failure::input(format!("{what}: `disclosure_hash` is not a digest")))?;
    Ok(SignedApproval::from_parts(
        json_in::string(&object, "key_id", &what)?,
        json_in::string(&object, "approval_id", &what)?,
        UnixTime(json_in::integer(&object, "not_after", &what)?),
        hash,
        json_in::string(&object, "sig", &what)?,
    ))
}
