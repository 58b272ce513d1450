//! The Redis server of the binary's Redis tests, from `seal-test-support`.

pub use seal_test_support::redis_server::*;
