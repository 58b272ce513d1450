//! Tests of the fleet store against a real PostgreSQL server (`SEAL_TEST_POSTGRES`, started by
//! `scripts/test`): machines pushing their checkpoints, the refusals of a rollback, a fork, a
//! wrong proof and a direct write, concurrent pushes, the database's proof check against
//! seal's, and the fork case against a broken variant of the database function.
#![allow(clippy::indexing_slicing, clippy::panic, clippy::unwrap_used)]

mod fleet;
mod machine;
