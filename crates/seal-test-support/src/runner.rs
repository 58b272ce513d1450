//! Proptest runners for properties and their negative controls.
//!
//! A negative control runs a property against a deliberately broken implementation and must
//! find a counterexample; with a fixed seed ([`seeded`]) it finds the same one on every run, so
//! the control cannot pass by luck. The real implementation is checked both with the fixed seed
//! and with a fresh one ([`exploring`]). No runner persists failures to files.

#![allow(clippy::panic)]

use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

/// The byte the default fixed seed repeats: [`seeded`] seeds ChaCha with `[SEED; 32]`.
pub const SEED: u8 = 7;

/// A proptest configuration of `cases` cases that writes no failure-persistence files.
pub fn no_persistence(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// A runner of `cases` cases from the fixed ChaCha seed `[SEED; 32]`.
pub fn seeded(cases: u32) -> TestRunner {
    seeded_by(SEED, cases)
}

/// A runner of `cases` cases from the fixed ChaCha seed `[seed; 32]`, for a file whose
/// controls were tuned to another seed than [`SEED`].
pub fn seeded_by(seed: u8, cases: u32) -> TestRunner {
    seeded_with(no_persistence(cases), seed)
}

/// A runner with `config` from the fixed ChaCha seed `[seed; 32]`.
pub fn seeded_with(config: Config, seed: u8) -> TestRunner {
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

/// A runner of `cases` cases from a fresh seed, exploring beyond the fixed one.
pub fn exploring(cases: u32) -> TestRunner {
    TestRunner::new(no_persistence(cases))
}

/// Checks that a negative control found a counterexample, and prints it with `what` (the name
/// of the broken implementation).
///
/// # Panics
///
/// When the run passed or was aborted.
pub fn assert_finds_counterexample<T: std::fmt::Debug>(
    result: Result<(), TestError<T>>,
    what: &str,
) {
    match result {
        Err(TestError::Fail(reason, minimal)) => {
            eprintln!("{what}: counterexample found as expected: {reason}\n{minimal:#?}");
        }
        Err(TestError::Abort(reason)) => panic!("{what}: aborted: {reason}"),
        Ok(()) => panic!("{what}: the broken implementation passed the property"),
    }
}

/// The minimal counterexample of a run, or `None` when the property held.
///
/// # Panics
///
/// When the run was aborted.
pub fn counterexample<T>(result: Result<(), TestError<T>>) -> Option<T> {
    match result {
        Ok(()) => None,
        Err(TestError::Fail(_, minimal)) => Some(minimal),
        Err(TestError::Abort(reason)) => panic!("aborted: {reason}"),
    }
}
