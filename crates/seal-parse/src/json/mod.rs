//! Canonical JSON (RFC 8785 profile): strict parsing, canonical bytes and their SHA-256.
