//! The byte search for candidate opening brackets.
//!
//! Two `memchr3` lanes run over the bytes: one for `<` and the lead bytes `0xE2` `0xEF`, one for
//! the lead bytes `0xE1` `0xE3` `0xCB`. Each lane caches its next hit and only searches again once
//! the scan has moved past it, so each lane reads every byte at most once: the search is linear
//! and, on text without `<` or those lead bytes, runs at `memchr` speed. A lead-byte hit becomes
//! a candidate only when the character it starts is an opening bracket.

use super::chars::{is_open_bracket, OPEN_LEAD_BYTES};
use super::finding::ScanStats;

/// Finds opening brackets from left to right.
pub(crate) struct CandidateSearch<'a> {
    text: &'a str,
    ascii: Lane,
    lead: Lane,
}

impl<'a> CandidateSearch<'a> {
    /// A search over `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        let [e1, e2, e3, ef, cb] = OPEN_LEAD_BYTES;
        CandidateSearch {
            text,
            ascii: Lane::new([b'<', e2, ef]),
            lead: Lane::new([e1, e3, cb]),
        }
    }

    /// The first opening bracket at or after byte `from`; `from` must not decrease between calls.
    pub(crate) fn next_candidate(
        &mut self,
        mut from: usize,
        stats: &mut ScanStats,
    ) -> Option<usize> {
        loop {
            let bytes = self.text.as_bytes();
            let hit = match (self.ascii.next(bytes, from), self.lead.next(bytes, from)) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (None, None) => return None,
            };
            stats.search_hits += 1;
            let c = self.text.get(hit..).and_then(|rest| rest.chars().next())?;
            if is_open_bracket(c) {
                return Some(hit);
            }
            from = hit + 1;
        }
    }
}

/// One `memchr3` search with its cached next hit.
struct Lane {
    needles: [u8; 3],
    cached: Option<usize>,
    exhausted: bool,
}

impl Lane {
    fn new(needles: [u8; 3]) -> Self {
        Lane {
            needles,
            cached: None,
            exhausted: false,
        }
    }

    fn next(&mut self, bytes: &[u8], from: usize) -> Option<usize> {
        if let Some(hit) = self.cached.filter(|&hit| hit >= from) {
            return Some(hit);
        }
        if self.exhausted {
            return None;
        }
        let [a, b, c] = self.needles;
        let found = bytes
            .get(from..)
            .and_then(|rest| memchr::memchr3(a, b, c, rest))
            .map(|offset| from + offset);
        self.cached = found;
        self.exhausted = found.is_none();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<usize> {
        let mut search = CandidateSearch::new(text);
        let mut stats = ScanStats::default();
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(at) = search.next_candidate(from, &mut stats) {
            out.push(at);
            from = at + 1;
        }
        out
    }

    #[test]
    fn finds_ascii_and_lookalike_brackets_only() {
        let text = "a<b\u{2014}c\u{ff1c}d\u{3008}e\u{1438}f\u{2c2}g\u{e9}\u{3000}<";
        let expected: Vec<usize> = text
            .char_indices()
            .filter(|(_, c)| is_open_bracket(*c))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(all(text), expected);
        assert_eq!(expected.len(), 6);
    }
}
