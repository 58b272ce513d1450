//! The trust store: key records with validity, status and scopes, resolved fail-closed for an
//! intended use at a time; JSON store documents; rotation by thresholds of distinct keys.
//!
//! The format and the rules are specified in spec/trust-store.md.

mod bind;
mod document;
mod document_error;
mod memory;
mod operator;
mod reader;
mod record;
mod resolve;
mod signed;
mod verified;

pub use bind::{BindError, MIN_BOUND_SECRET_BYTES};
pub use document::{KeyEntry, KeyMaterial, StoreDocument, StoreLimits, STORE_DOCUMENT_TYPE};
pub use document_error::{DocumentError, DocumentErrorKind};
pub use memory::{InsertError, MemoryTrustStore, MAX_STORE_KEYS};
pub use operator::{
    check_rotation, sign_store_document, sign_store_rotation, KeyRefusal, Rotation, TrustError,
};
pub use record::{
    is_key_id, FrameScope, KeyRecord, KeyRecordError, KeyStatus, ScopeError, Scopes, Validity,
    MAX_KEY_ID_LEN,
};
pub use resolve::{
    check_record, IntendedUse, KeySource, MatchedScope, Purpose, ResolveError, Resolved,
    StoreOperation,
};
pub use signed::{
    accept_initial, count_signers, rotate, RotationError, SignedStoreDocument, StoreSignature,
    TrustedDocument,
};
pub use verified::{verify_signature, verify_signature_in_conversation, Verified, VerifyFailure};
