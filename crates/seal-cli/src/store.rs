//! Reading the trust store file for `doctor`: the signed envelope of spec/trust-store.md
//! section 8, parsed strictly (acceptance and binding are the facade's, in `verify`).

use seal::store_document::{SignedStoreDocument, StoreLimits};

use crate::failure::{quoted, Failure};
use crate::io::{read_file, MAX_FILE_BYTES};

/// Reads and parses the envelope at `path` without accepting it.
pub fn parse(path: &str) -> Result<SignedStoreDocument, Failure> {
    let bytes = read_file(path, MAX_FILE_BYTES, "trust store")?;
    SignedStoreDocument::parse(&bytes, &StoreLimits::default())
        .map_err(|error| Failure::keys(format!("trust store {}: {error}", quoted(path))))
}
