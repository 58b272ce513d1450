//! Harness code shared by seal's tests, so that each test file states only what it checks.
//!
//! - [`golden`]: golden-vector text (pretty JSON with sorted keys, ASCII only) and the check of
//!   a committed file against what the code produces, rewritten when `SEAL_REGENERATE=1`.
//! - [`runner`]: proptest runners with a fixed seed (negative controls that must find their
//!   counterexample on every run), exploring runners, and the checks of their results.
//! - `postgres_server` (feature `postgres`): the PostgreSQL server of the fleet-log tests and a
//!   schema of each test's own.
//! - `redis_server` (feature `redis`): the Redis server of the Redis tests and private servers
//!   for fault tests.
//! - [`settings`]: client settings files, such as one holding given permission rules.
//! - [`spellings`]: inputs that spell one thing in several ways (a path, a command).
//! - `sqlite_lock` (feature `sqlite`): another process holding an SQLite file's write lock.
//! - `tool_call` (feature `policy`): tool calls for the policy tests and benches.
//! - [`text`]: values read out of produced text, such as a frame's `sig` attribute.
//! - `verify_setup` (feature `verify`): the frame verification that the verification bench, the
//!   allocation test and the instruction-count example measure, and a replay store that
//!   forgets.
//!
//! The helpers report a failed check by panicking, as a test does; they are for tests only.

pub mod golden;
#[cfg(feature = "postgres")]
pub mod postgres_server;
#[cfg(feature = "redis")]
pub mod redis_server;
pub mod runner;
pub mod settings;
pub mod spellings;
#[cfg(feature = "sqlite")]
pub mod sqlite_lock;
pub mod text;
#[cfg(feature = "policy")]
pub mod tool_call;
#[cfg(feature = "verify")]
pub mod verify_setup;

pub use golden::{
    ascii_only, check_json_or_regenerate, check_text_or_regenerate, committed_vector, golden_text,
    pretty_sorted, regenerating, sorted_keys, spec_vector,
};
pub use runner::{
    assert_finds_counterexample, counterexample, exploring, no_persistence, seeded, seeded_by,
    seeded_with, SEED,
};
pub use settings::permissions_json;
pub use text::quoted_attribute;
