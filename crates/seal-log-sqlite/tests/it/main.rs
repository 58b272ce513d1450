//! Tests of the SQLite decision log: appends and their checkpoints, the frontier against an
//! in-memory tree, the derived query index, a write interrupted at each step, and concurrent
//! writers.
#![allow(clippy::indexing_slicing, clippy::panic, clippy::unwrap_used)]

mod store;
