//! The Redis server of the binary's Redis tests, from `seal-test-support`; not every test
//! binary that includes `support` uses it.

#![allow(unused_imports)]

pub use seal_test_support::redis_server::*;
