//! Property tests against your own renderer with seal's `testing` feature.
//!
//! Two renderers of message bodies inside `<channel>` frames are checked with seal's
//! hostile-text strategy and its four checkers: a naive one (HTML-style escaping of `<`, `>`
//! and `&`, which is injective and round-trips but lets terminal controls and fullwidth
//! lookalike tags through) and one built on seal's escape grammar. The naive renderer is
//! caught with a counterexample for each property it breaks; the other passes every check.
//!
//! Run with `cargo run --example renderer_properties --features testing`.

use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use seal::render::{decode, escape, Context};
use seal::testing::{
    check_ascii_only, check_breakout_free, check_injective, check_round_trip, hostile_string,
    Counterexample,
};

/// The renderer under test: a message body inside a `<channel>` frame.
type Renderer = fn(&str) -> String;
/// Its decoder, when it has one.
type Decoder = fn(&str) -> Option<String>;
/// One property check over one input.
type Check = Box<dyn Fn(&str) -> Result<(), Counterexample>>;

fn html_like(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn html_like_decode(text: &str) -> Option<String> {
    Some(
        text.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

fn escaped(text: &str) -> String {
    escape(text, Context::Block).into_owned()
}

fn escaped_decode(text: &str) -> Option<String> {
    decode(text, Context::Block)
        .ok()
        .map(|text| text.into_owned())
}

fn main() {
    let mut failures = Vec::new();
    for (name, render, decoder) in [
        (
            "html-like",
            html_like as Renderer,
            html_like_decode as Decoder,
        ),
        (
            "seal escape",
            escaped as Renderer,
            escaped_decode as Decoder,
        ),
    ] {
        println!("renderer: {name}");
        let checks: [(&str, Check); 4] = [
            (
                "injective",
                Box::new(move |input| check_injective(render, input)),
            ),
            (
                "ascii-only",
                Box::new(move |input| check_ascii_only(render, input, true)),
            ),
            (
                "breakout-free",
                Box::new(move |input| check_breakout_free(render, "channel", input)),
            ),
            (
                "round-trip",
                Box::new(move |input| check_round_trip(render, decoder, input)),
            ),
        ];
        for (property, check) in &checks {
            // A fixed seed so the output is the same on every run.
            let mut runner = TestRunner::new_with_rng(
                Config {
                    cases: 256,
                    failure_persistence: None,
                    ..Config::default()
                },
                TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
            );
            let result = runner.run(&hostile_string(), |input| {
                check(&input).map_err(|error| TestCaseError::fail(error.to_string()))
            });
            match result {
                Ok(()) => println!("  {property:<14} ok (256 hostile inputs)"),
                Err(error) => {
                    failures.push((name, *property));
                    // The checker's message is ASCII already (the input is escaped in it).
                    let shown = match error {
                        TestError::Fail(reason, _) => reason.message().to_owned(),
                        TestError::Abort(reason) => format!("aborted: {}", reason.message()),
                    };
                    println!("  {property:<14} FAILS, shrunk to: {shown}");
                }
            }
        }
    }
    // The naive renderer is injective and round-trips, but breaks ASCII-only and
    // breakout-freedom; seal's escape breaks nothing.
    assert_eq!(
        failures,
        [("html-like", "ascii-only"), ("html-like", "breakout-free")],
        "unexpected results"
    );
    println!("as expected: the naive renderer fails 2 properties, seal's escape none");
}
