//! The byte search for candidate opening brackets.
//!
//! The leading part of the text that is all ASCII (found a chunk at a time) can hold no opening
//! bracket but `<`: it is searched with `memchr` for `<` alone, each call starting where the scan
//! stands, so each byte is read at most once more. From the first non-ASCII byte on, two
//! `memchr3` iterators run over the bytes: one for `<` and the lead bytes `0xE2` `0xEF`, one for
//! the lead bytes `0xE1` `0xE3` `0xCB` (every non-ASCII opening bracket starts with one of them).
//! Each iterator moves forward only, and only when the scan has passed its last hit, so each
//! reads every byte at most once: the search is linear, and on text without those bytes it runs
//! at `memchr` speed. A hit becomes a candidate only when the character it starts is an opening
//! bracket.

use memchr::Memchr3;

use super::chars::{is_open_bracket, OPEN_LEAD_BYTES};
use super::finding::ScanStats;

/// Finds opening brackets from left to right.
pub(crate) struct CandidateSearch<'a> {
    text: &'a str,
    /// Every byte before this offset is ASCII, where `<` is the only opening bracket: that part
    /// is searched for `<` alone.
    ascii_end: usize,
    /// The searches for `<` and the lead bytes of the lookalikes, over the bytes from
    /// `ascii_end` on (hits are offsets into that rest); none when the whole text is ASCII.
    lanes: Option<[Lane<'a>; 2]>,
}

impl<'a> CandidateSearch<'a> {
    /// A search over `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        CandidateSearch::with_ascii_end(text, ascii_prefix_len(text.as_bytes()))
    }

    /// A search over `text` that takes its first `ascii_end` bytes to be ASCII.
    fn with_ascii_end(text: &'a str, ascii_end: usize) -> Self {
        let [e2, ef, e1, e3, cb] = OPEN_LEAD_BYTES;
        let rest = text.as_bytes().get(ascii_end..).unwrap_or_default();
        let lanes = (!rest.is_empty()).then(|| {
            [
                Lane::new(Memchr3::new(b'<', e2, ef, rest)),
                Lane::new(Memchr3::new(e1, e3, cb, rest)),
            ]
        });
        CandidateSearch {
            text,
            ascii_end,
            lanes,
        }
    }

    /// The first opening bracket at or after byte `from`; `from` must not decrease between
    /// calls.
    pub(crate) fn next_candidate(&mut self, from: usize, stats: &mut ScanStats) -> Option<usize> {
        let bytes = self.text.as_bytes();
        if from < self.ascii_end {
            let ascii = bytes.get(from..self.ascii_end).unwrap_or_default();
            if let Some(offset) = memchr::memchr(b'<', ascii) {
                stats.search_hits += 1;
                return Some(from + offset);
            }
        }
        let lanes = self.lanes.as_mut()?;
        let rest = self.text.get(self.ascii_end..).unwrap_or_default();
        let from = from.saturating_sub(self.ascii_end);
        let ascii_end = self.ascii_end;
        lanes
            .iter_mut()
            .filter_map(|lane| lane.next(rest, from, stats))
            .min()
            .map(|hit| hit + ascii_end)
    }
}

/// Bytes searched for a non-ASCII byte at a time: each chunk's bytes are OR-ed together (a loop
/// the compiler turns into vector instructions, several times faster than `is_ascii` on short
/// texts), and only a chunk with a high bit set is read byte by byte.
const ASCII_CHUNK: usize = 512;

/// The length of the longest prefix of `bytes` that is all ASCII.
fn ascii_prefix_len(bytes: &[u8]) -> usize {
    let mut len = 0;
    for chunk in bytes.chunks(ASCII_CHUNK) {
        if chunk.iter().fold(0u8, |high, &byte| high | byte) >= 0x80 {
            return len + chunk.iter().take_while(|byte| byte.is_ascii()).count();
        }
        len += chunk.len();
    }
    len
}

/// One forward-only byte search with its next verified candidate.
struct Lane<'a> {
    hits: Memchr3<'a>,
    cached: Option<usize>,
    exhausted: bool,
}

impl<'a> Lane<'a> {
    fn new(hits: Memchr3<'a>) -> Self {
        Lane {
            hits,
            cached: None,
            exhausted: false,
        }
    }

    fn next(&mut self, text: &str, from: usize, stats: &mut ScanStats) -> Option<usize> {
        if let Some(candidate) = self.cached.filter(|&c| c >= from) {
            return Some(candidate);
        }
        while !self.exhausted {
            let Some(hit) = self.hits.next() else {
                self.exhausted = true;
                break;
            };
            stats.search_hits += 1;
            if hit < from {
                continue;
            }
            let bracket = text
                .get(hit..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(is_open_bracket);
            if bracket {
                self.cached = Some(hit);
                return Some(hit);
            }
        }
        self.cached = None;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fast(text: &str) -> Vec<usize> {
        fast_from(CandidateSearch::new(text), text)
    }

    fn fast_from(mut search: CandidateSearch<'_>, text: &str) -> Vec<usize> {
        let mut stats = ScanStats::default();
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(at) = search.next_candidate(from, &mut stats) {
            out.push(at);
            from = at + text[at..].chars().next().map_or(1, char::len_utf8);
        }
        out
    }

    fn naive(text: &str) -> Vec<usize> {
        text.char_indices()
            .filter(|(_, c)| is_open_bracket(*c))
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn finds_ascii_and_lookalike_brackets_only() {
        let text = "a<b\u{2014}c\u{ff1c}d\u{3008}e\u{1438}f\u{2c2}g\u{e9}\u{3000}\u{2039}\u{201c}\u{27e8}<";
        assert_eq!(fast(text), naive(text));
        assert_eq!(naive(text).len(), 8);
    }

    /// The search from each `from` in turn (each past the last candidate, moved on by the
    /// given extra bytes to the next character boundary), as the scan calls it after a tag.
    fn fast_with_jumps(text: &str, jumps: &[usize]) -> Vec<usize> {
        let mut search = CandidateSearch::new(text);
        let mut stats = ScanStats::default();
        let mut out = Vec::new();
        let mut from = 0;
        let mut jumps = jumps.iter().cycle();
        while let Some(at) = search.next_candidate(from, &mut stats) {
            assert!(at >= from);
            out.push(at);
            from = at + 1 + jumps.next().copied().unwrap_or(0);
            while from < text.len() && !text.is_char_boundary(from) {
                from += 1;
            }
        }
        out
    }

    /// What [`fast_with_jumps`] must give: each next bracket at or after `from`.
    fn naive_with_jumps(text: &str, jumps: &[usize]) -> Vec<usize> {
        let all = naive(text);
        let mut out = Vec::new();
        let mut from = 0;
        let mut jumps = jumps.iter().cycle();
        while let Some(&at) = all.iter().find(|&&at| at >= from) {
            out.push(at);
            from = at + 1 + jumps.next().copied().unwrap_or(0);
            while from < text.len() && !text.is_char_boundary(from) {
                from += 1;
            }
        }
        out
    }

    /// An ASCII run of up to three chunks with some `<`, so the ASCII part of the search is
    /// exercised across chunk ends, and sometimes ends exactly at one.
    fn ascii_prefix() -> impl Strategy<Value = String> {
        let len = prop_oneof![
            0..3 * ASCII_CHUNK,
            Just(ASCII_CHUNK - 1),
            Just(ASCII_CHUNK),
            Just(ASCII_CHUNK + 1),
        ];
        (len, proptest::collection::vec(0..3 * ASCII_CHUNK, 0..6)).prop_map(|(len, brackets)| {
            let mut bytes = vec![b'a'; len];
            for at in brackets {
                if let Some(byte) = bytes.get_mut(at) {
                    *byte = b'<';
                }
            }
            String::from_utf8(bytes).unwrap_or_default()
        })
    }

    #[test]
    fn ascii_prefixes_end_at_the_first_non_ascii_byte() {
        let long = "a".repeat(3 * ASCII_CHUNK);
        for (text, expected) in [
            (String::new(), 0),
            ("abc".to_owned(), 3),
            ("\u{e9}".to_owned(), 0),
            (format!("{long}\u{3008}x"), 3 * ASCII_CHUNK),
            (format!("{}\u{e9}", &long[..ASCII_CHUNK]), ASCII_CHUNK),
            (
                format!("{}\u{e9}", &long[..ASCII_CHUNK - 1]),
                ASCII_CHUNK - 1,
            ),
        ] {
            assert_eq!(ascii_prefix_len(text.as_bytes()), expected, "{text:?}");
        }
        // Any byte with the high bit set ends the prefix, 0x80 and 0xff included.
        for (bytes, expected) in [
            (&[0x80][..], 0),
            (&[b'a', 0x80, b'b'], 1),
            (&[b'a', b'b', 0xff], 2),
            (&[0x7f, 0x7f], 2),
        ] {
            assert_eq!(ascii_prefix_len(bytes), expected, "{bytes:?}");
        }
    }

    /// Negative control: a search that takes the ASCII part to reach one character past the
    /// first non-ASCII byte misses lookalike brackets there, and the property finds it.
    #[test]
    fn negative_control_an_ascii_part_too_long_is_caught() {
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
        let config = Config {
            cases: 2000,
            failure_persistence: None,
            ..Config::default()
        };
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[9; 32]);
        let mut runner = TestRunner::new_with_rng(config, rng);
        let strategy = (ascii_prefix(), seal_render::testing::hostile_string());
        let outcome = runner.run(&strategy, |(prefix, rest)| {
            let text = format!("{prefix}{rest}");
            let mut end = ascii_prefix_len(text.as_bytes());
            if end < text.len() {
                end += 1;
                while !text.is_char_boundary(end) {
                    end += 1;
                }
            }
            let broken = fast_from(CandidateSearch::with_ascii_end(&text, end), &text);
            prop_assert_eq!(broken, naive(&text));
            Ok(())
        });
        assert!(outcome.is_err(), "the broken search was not caught");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn fast_search_equals_naive(text in seal_render::testing::hostile_string()) {
            prop_assert_eq!(fast(&text), naive(&text));
        }

        #[test]
        fn fast_search_after_an_ascii_run_equals_naive(
            prefix in ascii_prefix(),
            rest in seal_render::testing::hostile_string(),
            jumps in proptest::collection::vec(0usize..700, 1..4),
        ) {
            let text = format!("{prefix}{rest}");
            prop_assert_eq!(fast(&text), naive(&text));
            prop_assert_eq!(fast_with_jumps(&text, &jumps), naive_with_jumps(&text, &jumps));
        }
    }
}
