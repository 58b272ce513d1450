//! The components of a path pattern and how they match: `**` across components; `*`, `?`
//! and classes within one.

use super::wildcard::glob;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Component {
    /// `**`: any number of components.
    Any,
    /// One component, with `*`, `?` and class wildcards.
    Glob(Vec<Unit>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Unit {
    Star,
    One,
    Char(char),
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

pub(super) fn matches_parts(components: &[Component], parts: &[&str]) -> bool {
    !parts.is_empty()
        && glob(
            components,
            parts,
            |c| *c == Component::Any,
            |c, part| match c {
                Component::Glob(units) => component_matches(units, part),
                Component::Any => false,
            },
        )
}

/// The units of one component: `*`, `?`, classes `[...]` (`!` or `^` first negates, `a-z`
/// ranges; a `[` without its `]` is literal), other characters literal.
pub(super) fn units(part: &str) -> Vec<Unit> {
    let chars: Vec<char> = part.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(&c) = chars.get(at) {
        at += 1;
        match c {
            '*' => out.push(Unit::Star),
            '?' => out.push(Unit::One),
            '[' => match chars.get(at..).and_then(class) {
                Some((unit, used)) => {
                    out.push(unit);
                    at += used;
                }
                None => out.push(Unit::Char('[')),
            },
            c => out.push(Unit::Char(c)),
        }
    }
    out
}

/// A class after its `[`, and how many characters it used (its `]` included).
fn class(rest: &[char]) -> Option<(Unit, usize)> {
    let mut at = 0;
    let negated = matches!(rest.first(), Some('!' | '^'));
    if negated {
        at += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *rest.get(at)?;
        if c == ']' && !first {
            return Some((Unit::Class { negated, ranges }, at + 1));
        }
        first = false;
        match (rest.get(at + 1), rest.get(at + 2)) {
            (Some('-'), Some(&end)) if end != ']' => {
                ranges.push((c, end));
                at += 3;
            }
            _ => {
                ranges.push((c, c));
                at += 1;
            }
        }
    }
}

fn component_matches(units: &[Unit], part: &str) -> bool {
    // A literal component (most are) compares character by character, with no copy.
    if units.iter().all(|unit| matches!(unit, Unit::Char(_))) {
        let mut chars = part.chars();
        return units
            .iter()
            .all(|unit| matches!(unit, Unit::Char(want) if chars.next() == Some(*want)))
            && chars.next().is_none();
    }
    let text: Vec<char> = part.chars().collect();
    glob(
        units,
        &text,
        |u| *u == Unit::Star,
        |u, c| match u {
            Unit::Char(want) => want == c,
            Unit::One => true,
            Unit::Class { negated, ranges } => {
                ranges.iter().any(|(lo, hi)| lo <= c && c <= hi) != *negated
            }
            Unit::Star => false,
        },
    )
}
