//! Trust store documents as spec/trust-store.md (section 8) defines them, for tools that
//! inspect or write one: the signed envelope, the document and its key entries, and the
//! acceptance of a first document. A [`TrustStore`](crate::TrustStore) is built from the same
//! envelope with [`TrustStore::from_signed_document`](crate::TrustStore::from_signed_document);
//! documents are signed with [`sign_store_document`](crate::sign_store_document).
//!
//! These are the core verifier's own items, re-exported as they are: their meaning is fixed
//! by the spec.
//!
//! ```
//! use seal::store_document::{SignedStoreDocument, StoreLimits};
//!
//! let refused = SignedStoreDocument::parse(br#"{"document": 1}"#, &StoreLimits::default());
//! assert!(refused.is_err());
//! ```

/// Why a key record was refused (a key id outside the grammar, an inverted window).
pub use seal_verify::store::KeyRecordError;
pub use seal_verify::store::{
    accept_initial, BindError, DocumentError, DocumentErrorKind, InsertError, KeyEntry,
    KeyMaterial, KeyStatus, RotationError, ScopeError, SignedStoreDocument, StoreDocument,
    StoreLimits, TrustedDocument, Validity, STORE_DOCUMENT_TYPE,
};
pub use seal_verify::{TagLengthError, COMPACT_TAG_BITS, MAX_TAG_CHARS, MIN_TAG_CHARS};
