//! Integration tests of seal-store-sqlite in one binary: the SQLite replay store against the
//! replay store contract, its faults and its imports (`sqlite_store`).
#![allow(clippy::unwrap_used)]

mod sqlite_store;
