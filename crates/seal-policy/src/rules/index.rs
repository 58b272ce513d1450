//! Which rules can apply to a call, selected with bit operations: the tools, programs and
//! effects of the first rules ([`RuleIndex`]), and one evaluation's view of the rules naming
//! its tool ([`Applicable`]).

use super::rule::Specifier;
use super::set::{RuleEntry, RuleSet};
use super::Effect;

/// Most tool names [`RuleIndex`] keeps the rules of.
const MAX_INDEXED_TOOLS: usize = 16;

/// Bit masks over the first [`MASKED`] rules, kept up to date as rules are added, so that an
/// evaluation selects the rules that can apply with bit operations. Each mask is exactly what
/// testing the rules one by one gives: the index only skips tests that cannot succeed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct RuleIndex {
    /// Tool names some rule names literally (at most [`MAX_INDEXED_TOOLS`]), each with the
    /// rules naming it ([`Rule::names`]); another tool name is worked out rule by rule.
    tools: Vec<(Box<str>, u64)>,
    /// Program names, sorted by length then bytes (see [`by_length`]), each with the command rules that can match only a form whose
    /// program is that name: a pattern without `*` compares its first word with the form's
    /// program exactly, and a rule read by a model matches only a form its model reads.
    programs: Vec<(Box<str>, u64)>,
    /// Command rules that may match a form of any program (a `*` in the pattern, or no word).
    any_program: u64,
    /// The rules of each effect: allow, ask, deny ([`RuleIndex::effect`]).
    effects: [u64; 3],
    /// The rules read by a program model.
    modelled: u64,
    /// Whether a rule from [`MASKED`] on is read by a program model.
    modelled_beyond: bool,
}

impl RuleIndex {
    /// Records rule `index` (below [`MASKED`]), after `rules` (which ends with it).
    pub(super) fn add(&mut self, rules: &[RuleEntry], index: usize) {
        let Some(entry) = rules.get(index) else {
            return;
        };
        if index >= MASKED {
            self.modelled_beyond |= entry.model.is_some();
            return;
        }
        let bit = 1u64 << index;
        *self.effect_mut(entry.effect) |= bit;
        if entry.model.is_some() {
            self.modelled |= bit;
        }
        for (tool, mask) in &mut self.tools {
            if entry.rule.names(entry.effect, tool) {
                *mask |= bit;
            }
        }
        if let super::ToolPattern::Exact(name) = entry.rule.tool() {
            let known = self.tools.iter().any(|(tool, _)| **tool == **name);
            if !known && self.tools.len() < MAX_INDEXED_TOOLS {
                let mut mask = 0;
                for (at, e) in rules.iter().enumerate().take(MASKED) {
                    if e.rule.names(e.effect, name) {
                        mask |= 1 << at;
                    }
                }
                self.tools.push((name.as_str().into(), mask));
            }
        }
        let Specifier::Command(pattern) = entry.rule.specifier() else {
            return;
        };
        let first = pattern.words().first().filter(|_| !pattern.has_wildcard());
        let Some(first) = first else {
            self.any_program |= bit;
            return;
        };
        let modelled = entry
            .model
            .as_ref()
            .map_or(&[][..], |_| seal_parse::shell::model_names(first));
        for program in std::iter::once(first.as_str()).chain(modelled.iter().copied()) {
            match self
                .programs
                .binary_search_by(|(name, _)| by_length(name, program))
            {
                Ok(at) => {
                    if let Some((_, mask)) = self.programs.get_mut(at) {
                        *mask |= bit;
                    }
                }
                Err(at) => self.programs.insert(at, (program.into(), bit)),
            }
        }
    }

    /// The rules naming `tool`, if the index keeps that name.
    pub(super) fn tool(&self, tool: &str) -> Option<u64> {
        self.tools
            .iter()
            .find(|(name, _)| **name == *tool)
            .map(|(_, mask)| *mask)
    }

    /// The command rules that may match a form whose program is `program`.
    pub(super) fn candidates(&self, program: &str) -> u64 {
        let named = self
            .programs
            .binary_search_by(|(name, _)| by_length(name, program))
            .ok()
            .and_then(|at| self.programs.get(at))
            // A program no rule names by its first word: only the rules for any program.
            .map_or(0, |(_, mask)| *mask);
        named | self.any_program
    }
    /// The rules of `effect`.
    fn effect(&self, effect: Effect) -> u64 {
        let [allow, ask, deny] = self.effects;
        match effect {
            Effect::Allow => allow,
            Effect::Ask => ask,
            Effect::Deny => deny,
        }
    }

    fn effect_mut(&mut self, effect: Effect) -> &mut u64 {
        let [allow, ask, deny] = &mut self.effects;
        match effect {
            Effect::Allow => allow,
            Effect::Ask => ask,
            Effect::Deny => deny,
        }
    }
}

impl RuleSet {
    /// The rules naming `tool`, as a view ([`Applicable`]).
    pub(super) fn applicable<'a>(&'a self, tool: &'a str) -> Applicable<'a> {
        let named = self.index.tool(tool).unwrap_or_else(|| {
            let mut named = 0u64;
            for (index, entry) in self.rules.iter().enumerate().take(MASKED) {
                if entry.rule.names(entry.effect, tool) {
                    named |= 1 << index;
                }
            }
            named
        });
        Applicable {
            entries: &self.rules,
            tool,
            named,
            index: &self.index,
        }
    }
}

/// Rules whose tool match [`Applicable`] works out once per evaluation (bits of a `u64`); the
/// others are matched against the tool name each time they are looked at.
pub(super) const MASKED: usize = 64;

/// The rules that name the tool, in set order, with their indices: a view, so that selecting
/// them allocates nothing.
#[derive(Clone, Copy)]
pub(super) struct Applicable<'a> {
    entries: &'a [RuleEntry],
    pub(super) tool: &'a str,
    /// Bit `i`: rule `i` (for `i` below [`MASKED`]) names the tool.
    named: u64,
    index: &'a RuleIndex,
}

impl<'a> Applicable<'a> {
    pub(super) fn names(self, index: usize, entry: &RuleEntry) -> bool {
        if index < MASKED {
            self.named >> index & 1 == 1
        } else {
            entry.rule.names(entry.effect, self.tool)
        }
    }

    pub(super) fn iter(self) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        self.among(u64::MAX)
    }

    /// The rules that name the tool among `only` (bit `i` for rule `i` below [`MASKED`];
    /// every rule from [`MASKED`] on is looked at), in set order.
    pub(super) fn among(self, only: u64) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        let head = Bits(self.named & only)
            .filter_map(move |index| self.entries.get(index).map(|entry| (index, entry)));
        let tail = self
            .entries
            .iter()
            .enumerate()
            .skip(MASKED)
            .filter(move |(index, entry)| self.names(*index, entry));
        head.chain(tail)
    }

    /// The rules that name the tool and may match a form whose program is `program`: bit `i`
    /// for rule `i` below [`MASKED`] (see [`Applicable::among`]).
    pub(super) fn candidates(self, program: &str) -> u64 {
        self.named & self.index.candidates(program)
    }

    /// Whether a rule read by a program model names the tool among `candidates` (or stands
    /// beyond the indexed rules).
    pub(super) fn may_be_modelled(self, candidates: u64) -> bool {
        self.named & candidates & self.index.modelled != 0 || self.index.modelled_beyond
    }

    /// The rules of one effect.
    pub(super) fn of(self, effect: Effect) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        self.of_among(effect, u64::MAX)
    }

    /// The rules of one effect among `only` (as for [`Applicable::among`]).
    pub(super) fn of_among(
        self,
        effect: Effect,
        only: u64,
    ) -> impl Iterator<Item = (usize, &'a RuleEntry)> + Clone {
        self.among(self.index.effect(effect) & only)
            .filter(move |(_, entry)| entry.effect == effect)
    }
}

/// The set bits of a mask, lowest first.
#[derive(Clone, Copy)]
struct Bits(u64);

impl Iterator for Bits {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let at = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        usize::try_from(at).ok()
    }
}

/// Orders names by length first, so that a search compares bytes only of names as long as
/// the one it looks for.
fn by_length(name: &str, program: &str) -> std::cmp::Ordering {
    name.len()
        .cmp(&program.len())
        .then_with(|| name.as_bytes().cmp(program.as_bytes()))
}
