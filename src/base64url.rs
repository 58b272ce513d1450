//! Strict, canonical base64url without padding (RFC 4648 section 5): the spelling of key
//! material and signatures in trust store documents and key files (spec/trust-store.md).
//!
//! The core encoding's own functions, re-exported as they are: every byte string has exactly
//! one accepted text.
//!
//! ```
//! let text = seal::base64url::encode(b"seal");
//! assert_eq!(text, "c2VhbA");
//! assert_eq!(seal::base64url::decode(&text)?, b"seal");
//! assert!(seal::base64url::decode("c2VhbA==").is_err());
//! # Ok::<(), seal::base64url::Base64Error>(())
//! ```

pub use seal_verify::base64url::{decode, encode, Base64Error};
