//! Integration tests of seal-store-redis in one binary: the Redis replay store against a real
//! `redis-server`, found through `SEAL_TEST_REDIS` (`redis_store`).
#![allow(clippy::indexing_slicing, clippy::unwrap_used)]

mod redis_store;
