//! The byte search for candidate opening brackets.
//!
//! Two `memchr3` iterators run over the bytes: one for `<` and the lead bytes `0xE2` `0xEF`, one
//! for the lead bytes `0xE1` `0xE3` `0xCB` (every non-ASCII opening bracket starts with one of
//! them). Each iterator moves forward only, and only when the scan has passed its last hit, so
//! each reads every byte at most once: the search is linear, and on text without those bytes it
//! runs at `memchr` speed. A hit becomes a candidate only when the character it starts is an
//! opening bracket.

use memchr::Memchr3;

use super::chars::{is_open_bracket, OPEN_LEAD_BYTES};
use super::finding::ScanStats;

/// Finds opening brackets from left to right.
pub(crate) struct CandidateSearch<'a> {
    text: &'a str,
    lanes: [Lane<'a>; 2],
}

impl<'a> CandidateSearch<'a> {
    /// A search over `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        let [e2, ef, e1, e3, cb] = OPEN_LEAD_BYTES;
        let bytes = text.as_bytes();
        CandidateSearch {
            text,
            lanes: [
                Lane::new(Memchr3::new(b'<', e2, ef, bytes)),
                Lane::new(Memchr3::new(e1, e3, cb, bytes)),
            ],
        }
    }

    /// The first opening bracket at or after byte `from`; `from` must not decrease between
    /// calls.
    pub(crate) fn next_candidate(&mut self, from: usize, stats: &mut ScanStats) -> Option<usize> {
        let text = self.text;
        self.lanes
            .iter_mut()
            .filter_map(|lane| lane.next(text, from, stats))
            .min()
    }
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
        let mut search = CandidateSearch::new(text);
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

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn fast_search_equals_naive(text in seal_render::testing::hostile_string()) {
            prop_assert_eq!(fast(&text), naive(&text));
        }
    }
}
