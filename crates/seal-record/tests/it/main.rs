//! Integration tests of seal-record in one binary: signing inputs (injectivity, PASETO PAE,
//! scanned frames), the disclosure manifest, sealed calls and audit records, golden vectors,
//! error messages and the fuzz checks, one module per former test file.
#![allow(clippy::indexing_slicing, clippy::panic, clippy::unwrap_used)]

mod foreign_call;
mod fuzz_checks;
mod golden;
mod injective;
mod log_records;
mod manifest;
mod messages;
mod no_panic;
mod paseto_pae;
mod record_readers;
mod records;
mod scanned_frame;
mod tlog_merkle;
mod tlog_tiles;
