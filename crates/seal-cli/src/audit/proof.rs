//! `seal audit prove` and `seal audit check-proof`: offline inclusion proofs in the C2SP
//! tlog-proof form.

use seal::log::tlog::{leaf_hash, verify_inclusion, ProofFile, Tree};

use crate::cli::{AuditCheckProofArgs, AuditProveArgs};
use crate::failure::{quoted, Exit, Failure};
use crate::io::{read_file, utf8};

/// Runs `seal audit prove`: the proof of entry `--index` against the latest checkpoint.
pub fn prove(args: &AuditProveArgs) -> Result<u8, Failure> {
    let log = super::open(&super::log_path(&args.log)?)?;
    let (size, note) = log
        .latest_checkpoint()
        .map_err(|error| Failure::input(error.to_string()))?
        .ok_or_else(|| Failure::input("the log holds no checkpoint"))?;
    if args.index >= size {
        return Err(Failure::usage(format!(
            "entry {} is not inside the latest checkpoint (size {size})",
            args.index
        )));
    }
    let mut tree = Tree::new();
    log.for_each_entry(|entry| {
        if tree.len() < size {
            tree.push(leaf_hash(&entry.record));
        }
        Ok::<(), ()>(())
    })
    .map_err(|error| Failure::input(error.to_string()))?
    .map_err(|()| Failure::input("the log could not be read"))?;
    let path = tree
        .inclusion_proof(args.index, size)
        .map_err(|error| Failure::input(format!("{error} (run `seal audit verify`)")))?;
    out!("{}", ProofFile::new(args.index, path, &note).to_text());
    Ok(Exit::Ok.code())
}

/// Runs `seal audit check-proof`.
pub fn check(args: &AuditCheckProofArgs) -> Result<u8, Failure> {
    let text = utf8(read_file(&args.proof, 131_072, "proof")?, "proof")?;
    let proof = ProofFile::parse(&text)
        .map_err(|error| Failure::input(format!("proof {}: {error}", quoted(&args.proof))))?;
    let record = read_file(&args.record, 65_536, "record")?;
    let vkey = super::verify::vkey_of(&args.vkey)?;
    let checkpoint = seal::log::open_checkpoint(proof.checkpoint(), std::slice::from_ref(&vkey))
        .map_err(|error| Failure::new(Exit::LogBroken, format!("proof's checkpoint: {error}")))?
        .into_checkpoint();
    let leaf = leaf_hash(&record);
    match verify_inclusion(
        &leaf,
        proof.index(),
        checkpoint.size(),
        proof.path(),
        checkpoint.root(),
    ) {
        Ok(()) => {
            outln!(
                "ok: the record is entry {} of {} (size {}), signed by {}",
                proof.index(),
                checkpoint.origin(),
                checkpoint.size(),
                vkey.name()
            );
            Ok(Exit::Ok.code())
        }
        Err(error) => Err(Failure::new(
            Exit::LogBroken,
            format!(
                "the record is not entry {} of the checkpoint: {error}",
                proof.index()
            ),
        )),
    }
}
