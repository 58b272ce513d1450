//! The renderer checkers of `seal::testing`: seal's own escape passes each of them, and a
//! broken renderer is caught by each one under a fixed seed (the negative controls).

#[cfg(feature = "testing")]
mod checkers {

    use proptest::prelude::*;
    use proptest::test_runner::{TestCaseError, TestRunner};

    use seal::render::{decode, escape, Context};
    use seal::testing::{
        check_ascii_only, check_breakout_free, check_injective, check_round_trip, hostile_string,
        Counterexample,
    };

    fn runner(cases: u32) -> TestRunner {
        seal_test_support::seeded(cases)
    }

    /// Runs `check` over hostile strings; `Ok` when it never failed.
    fn run(cases: u32, check: impl Fn(&str) -> Result<(), Counterexample>) -> Result<(), String> {
        runner(cases)
            .run(&hostile_string(), |input| {
                check(&input).map_err(|e| TestCaseError::fail(e.to_string()))
            })
            .map_err(|error| error.to_string())
    }

    fn block(text: &str) -> String {
        escape(text, Context::Block).into_owned()
    }

    fn inline(text: &str) -> String {
        escape(text, Context::Inline).into_owned()
    }

    fn decode_block(text: &str) -> Option<String> {
        decode(text, Context::Block).ok().map(|t| t.into_owned())
    }

    #[test]
    fn seal_escape_passes_every_checker() {
        run(512, |input| check_injective(block, input)).unwrap();
        run(512, |input| check_injective(inline, input)).unwrap();
        run(512, |input| check_ascii_only(block, input, true)).unwrap();
        run(512, |input| check_ascii_only(inline, input, false)).unwrap();
        run(512, |input| check_breakout_free(block, "channel", input)).unwrap();
        run(512, |input| check_round_trip(block, decode_block, input)).unwrap();
    }

    #[test]
    fn injective_catches_a_renderer_that_strips_controls() {
        let strips =
            |text: &str| block(&text.chars().filter(|c| !c.is_control()).collect::<String>());
        let error = run(256, |input| check_injective(strips, input)).unwrap_err();
        assert!(error.contains("injective fails"), "{error}");
    }

    #[test]
    fn injective_catches_a_renderer_that_escapes_lt_but_not_backslash() {
        let no_backslash = |text: &str| text.replace('<', "\\u{3c}");
        let error = run(256, |input| check_injective(no_backslash, input)).unwrap_err();
        assert!(error.contains("renders the same"), "{error}");
    }

    #[test]
    fn injective_catches_compatibility_folding() {
        let folds = |text: &str| {
            let folded: String = text
                .chars()
                .map(|c| match u32::from(c) {
                    0xff01..=0xff5e => char::from_u32(u32::from(c) - 0xff01 + 0x21).unwrap_or(c),
                    _ => c,
                })
                .collect();
            block(&folded)
        };
        assert!(run(256, |input| check_injective(folds, input)).is_err());
    }

    #[test]
    fn ascii_only_catches_escape_debug_and_raw_cr() {
        let debug = |text: &str| text.escape_debug().to_string();
        let error = run(256, |input| check_ascii_only(debug, input, true)).unwrap_err();
        assert!(error.contains("ascii-only fails"), "{error}");
        let keeps_cr = |text: &str| inline(text).replace("\\u{d}", "\r");
        assert!(check_ascii_only(keeps_cr, "a\rb", false).is_err());
        assert!(run(256, |input| check_ascii_only(keeps_cr, input, true)).is_err());
    }

    #[test]
    fn breakout_free_catches_the_harness_rewrite_and_html_escaping() {
        let rewrite = |text: &str| text.replace("</channel>", "<\\/channel>");
        let error = run(256, |input| check_breakout_free(rewrite, "channel", input)).unwrap_err();
        assert!(error.contains("breakout-free fails"), "{error}");
        let html = |text: &str| {
            text.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        assert!(run(256, |input| check_breakout_free(html, "channel", input)).is_err());
        assert!(check_breakout_free(block, "Channel", "x").is_err());
    }

    #[test]
    fn round_trip_catches_lossy_renderers_and_decoders() {
        let no_backslash = |text: &str| text.replace('<', "\\u{3c}").replace('\r', "\\u{d}");
        let error = run(256, |input| {
            check_round_trip(no_backslash, decode_block, input)
        })
        .unwrap_err();
        assert!(error.contains("round-trip fails"), "{error}");
        let lossy = |text: &str| block(&text.replace('\u{0}', ""));
        assert!(run(256, |input| check_round_trip(lossy, decode_block, input)).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn attribute_escape_is_ascii_without_lf(input in hostile_string()) {
            let attribute = |text: &str| escape(text, Context::Attribute).into_owned();
            check_ascii_only(attribute, &input, false).map_err(|e| TestCaseError::fail(e.to_string()))?;
            check_injective(attribute, &input).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
    }
}
