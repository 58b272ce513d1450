//! Fault injection for the binary's own tests (the `fault-injection` feature, off by default):
//! with it, `SEAL_FAULT=<point>` panics at that point and `SEAL_FAULT=hang:<point>` blocks
//! there for an hour, so tests of the built binary can show every failure path of the hooks.
//! Without the feature, [`point`] does nothing and reads nothing.
//!
//! Points: `args` (before the command line is parsed), `input` (after stdin is read), `decide`
//! (before the decision or the verification), `answer` (after the answer is built, before it is
//! written).

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
}

/// A named point where a test may inject a fault (nothing happens without the
/// `fault-injection` feature).
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn point(_name: &str) {}
