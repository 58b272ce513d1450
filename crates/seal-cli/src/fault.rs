//! Fault injection for the binary's own tests (the `fault-injection` feature, off by default):
//! with it, `SEAL_FAULT=<point>` panics at that point and `SEAL_FAULT=hang:<point>` blocks
//! there for an hour, and `SEAL_FAULT=abort:<point>` ends the process there at once, as a kill
//! would, so tests of the built binary can show every failure path of the hooks.
//! Without the feature, [`point`] does nothing and reads nothing.
//!
//! Points: `args` (before the command line is parsed), `input` (after stdin is read), `decide`
//! (before the decision or the verification), `answer` (after the answer is built, before it is
//! written), and the write steps of a decision-log append: `entry`, `checkpoint`, `frontier`,
//! `index`, `commit` (each before it is taken).
//!
//! One fault is a behaviour, not a point: `SEAL_FAULT=nonatomic-claim` makes every claim in a
//! Redis replay state a `GET`, a 20 ms wait, then a plain `SET` ([`nonatomic_claim`]): the
//! broken store the Redis race test must catch.

/// A named point where a test may inject a fault.
#[cfg(feature = "fault-injection")]
#[allow(clippy::panic)]
pub fn point(name: &str) {
    let Some(fault) = std::env::var_os("SEAL_FAULT") else {
        return;
    };
    let Some(fault) = fault.to_str() else {
        return;
    };
    if fault == name {
        panic!("fault injected at `{name}`");
    }
    if fault.strip_prefix("hang:") == Some(name) {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
    if fault.strip_prefix("abort:") == Some(name) {
        // As a kill: no unwinding, no destructor, no buffered write flushed.
        std::process::abort();
    }
}

/// A named point where a test may inject a fault (nothing happens without the
/// `fault-injection` feature).
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn point(_name: &str) {}

/// Whether `SEAL_FAULT` names the behaviour `name`.
#[cfg(feature = "fault-injection")]
pub fn active(name: &str) -> bool {
    std::env::var_os("SEAL_FAULT").is_some_and(|fault| fault == name)
}

/// The broken claim of `SEAL_FAULT=nonatomic-claim`: checks with `GET`, waits 20 ms, then
/// records with `SET .. PX` (no `NX`), so two lanes racing on one id can both find it fresh.
/// The server is reached at the store's shown address (test servers have no password).
#[cfg(feature = "fault-injection")]
pub fn nonatomic_claim(
    store: &seal_store_redis::RedisReplayStore,
    claim: &seal::Claim<'_>,
) -> Result<seal::ClaimOutcome, seal::ClaimError> {
    let unavailable = |error: redis::RedisError| seal::ClaimError::Unavailable {
        detail: error.to_string(),
    };
    let mut connection = redis::Client::open(store.address().to_string())
        .and_then(|client| client.get_connection())
        .map_err(unavailable)?;
    let key = store.key(&claim.scope, claim.id);
    let seen: Option<String> = redis::cmd("GET")
        .arg(&key)
        .query(&mut connection)
        .map_err(unavailable)?;
    if seen.is_some() {
        return Ok(seal::ClaimOutcome::Replayed);
    }
    std::thread::sleep(std::time::Duration::from_millis(20));
    let lifetime = claim
        .expires_at
        .seconds()
        .saturating_sub(claim.now.seconds())
        .saturating_add(1)
        .saturating_mul(1000);
    redis::cmd("SET")
        .arg(&key)
        .arg(1)
        .arg("PX")
        .arg(lifetime)
        .query::<()>(&mut connection)
        .map_err(unavailable)?;
    Ok(seal::ClaimOutcome::Fresh)
}
