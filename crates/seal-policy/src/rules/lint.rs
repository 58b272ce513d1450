//! Lint of a rule set: rules that can never fire, or do not mean what they seem to, each with
//! a counterexample input and what the whole set does with it.

use std::fmt;

use super::command::CommandPattern;
use super::evaluation::Evaluation;
use super::load::example_outcome;
use super::rule::{FieldKind, Specifier, ToolPattern};
use super::set::{Location, RuleEntry, RuleSet};
use super::Effect;
use crate::chain::Subject;

/// Program words that are shell keywords or builtins the segmenter refuses in program
/// position: a command rule whose program is one of them can never match a segment.
const NEVER_PROGRAMS: &[&str] = &[
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "for",
    "while",
    "until",
    "case",
    "esac",
    "select",
    "function",
    "coproc",
    "do",
    "done",
    "in",
    "time",
    "[[",
    "]]",
    "!",
    "{",
    "}",
    "eval",
    "source",
    ".",
    "alias",
    "trap",
    "fc",
    "enable",
    "repeat",
    "foreach",
    "noglob",
    "nocorrect",
];

/// One lint finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintFinding {
    /// Index of the rule in [`RuleSet::rules`].
    pub rule: usize,
    /// The rule as written.
    pub text: String,
    /// What is wrong.
    pub kind: FindingKind,
    /// The tool the counterexample is a call of.
    pub tool: String,
    /// The counterexample: a command, path, URL or tool name (after the rule's tool).
    pub counterexample: String,
    /// Whether the rule alone (with its effect) fires on the counterexample, as the load-time
    /// example check decides it: `true` for the coverage findings, `false` for the others.
    pub fires_alone: bool,
    /// What the whole rule set gives on the counterexample.
    pub evaluation: Evaluation,
    /// Where the rule was written, for a rule loaded from a file.
    pub location: Option<Location>,
}

/// The kinds of finding.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FindingKind {
    /// An allow or ask rule every match of which a deny rule also matches: it can never fire
    /// (deny beats ask beats allow). The counterexample is matched by the rule and denied.
    CoveredByDeny {
        /// Index of the deny rule.
        deny: usize,
    },
    /// An ask rule matched by a broader allow rule. The ask still wins (deny > ask > allow):
    /// reported because the allow reads as if it overrode the ask. The counterexample is
    /// matched by both and asks.
    AskUnderBroadAllow {
        /// Index of the allow rule.
        allow: usize,
    },
    /// A command rule whose specifier contains a shell separator (`&&`, `||`, `;`, `|`, `&`,
    /// newline). Commands are matched per segment, so the rule never matches the command it
    /// spells; the counterexample is that command, on which the rule alone does not fire.
    Separator {
        /// The word holding the separator.
        word: String,
    },
    /// A command rule whose program word can never be a segment's program (a keyword, an
    /// `eval`-like builtin, a non-ASCII name, a shell metacharacter, a leading `~`, `=` or
    /// `#`): the segmenter refuses such commands, so the rule never fires.
    NeverMatches {
        /// Why.
        why: &'static str,
    },
    /// A command specifier with quote characters: they are matched literally, not as shell
    /// quoting, so only the command written with these very quotes matches, and the same
    /// command quoted otherwise or not at all (the counterexample) does not.
    LiteralQuotes,
    /// `:*` somewhere else than at the end: it is then two literal characters of a word, not
    /// "then anything". The counterexample is the command the author likely meant.
    MisplacedPrefixWildcard,
    /// A specifier seal does not interpret (on a tool seal reads no field of, or in a form it
    /// cannot read): as an allow rule it allows nothing, as a deny or ask rule it makes every
    /// call of the tool ask. The counterexample is a call of the tool; the message gives the
    /// rule's line and column in its file.
    Uninterpreted {
        /// Why seal does not interpret it.
        why: String,
    },
    /// An allow rule that allows nothing, in Claude Code as in seal, or in seal only where
    /// seal is stricter on purpose (spec/policy-rules.md, section 12): `Write(path)`,
    /// `MultiEdit(path)`, `NotebookEdit(path)` (write `Edit(path)`), `mcp__*`, a `../` path,
    /// a `~/` path when the set has no home directory, a command with an expansion
    /// (`Bash(echo $HOME)`). The counterexample is a call the rule
    /// seems to allow; the set does not allow it.
    AllowsNothing {
        /// Why, and what to write instead.
        why: &'static str,
    },
}

impl fmt::Display for LintFinding {
    /// The finding as one line, its rule text, words and counterexample as they are (raw:
    /// escape it for display, as [`RuleFinding::message`](crate::assembly::RuleFinding::message)
    /// does).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (FindingKind::Uninterpreted { .. }, Some(at)) = (&self.kind, self.location) {
            write!(f, "line {}, column {}: ", at.line, at.column)?;
        }
        write!(f, "rule `{}`: ", self.text)?;
        match &self.kind {
            FindingKind::CoveredByDeny { deny } => write!(
                f,
                "never fires: deny rule #{deny} matches everything it matches"
            )?,
            FindingKind::AskUnderBroadAllow { allow } => write!(
                f,
                "allow rule #{allow} also matches; the ask still wins (deny > ask > allow)"
            )?,
            FindingKind::Separator { word } => write!(
                f,
                "specifier contains the separator word `{word}`; commands are matched per segment"
            )?,
            FindingKind::NeverMatches { why } => write!(f, "never matches a segment: {why}")?,
            FindingKind::LiteralQuotes => {
                f.write_str("quotes in a specifier are matched literally (only the command written with these quotes matches)")?
            }
            FindingKind::MisplacedPrefixWildcard => {
                f.write_str("`:*` means \"then anything\" only at the end")?
            }
            FindingKind::AllowsNothing { why } => write!(f, "allows nothing: {why}")?,
            FindingKind::Uninterpreted { why } => write!(
                f,
                "not interpreted by seal ({why}): as an allow rule it allows nothing, as a deny or ask rule every call of the tool asks"
            )?,
        }
        write!(
            f,
            "; counterexample {} `{}` gives {}",
            self.tool, self.counterexample, self.evaluation
        )
    }
}

/// Lints `rules`. Findings come rule by rule, in set order.
///
/// ```
/// use seal_policy::rules::{lint, Effect, FindingKind, RuleSet};
///
/// let mut rules = RuleSet::default();
/// rules.push(Effect::Allow, "Bash(git log && rm:*)")?;
/// let findings = lint(&rules);
/// assert!(matches!(findings[0].kind, FindingKind::Separator { .. }));
/// assert_eq!(findings[0].counterexample, "git log && rm");
/// assert_eq!(findings[0].evaluation.effect(), None); // two segments, neither allowed
/// # Ok::<(), seal_policy::rules::RuleSyntaxError>(())
/// ```
#[must_use]
pub fn lint(rules: &RuleSet) -> Vec<LintFinding> {
    let entries = rules.rules();
    let mut findings = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let push = |findings: &mut Vec<LintFinding>, kind, (tool, input): (String, String)| {
            let evaluation = evaluate(rules, &tool, &input);
            let fires_alone = fires_alone(rules, entry, &input);
            findings.push(LintFinding {
                fires_alone,
                rule: index,
                text: entry.text().to_owned(),
                kind,
                tool,
                counterexample: input,
                evaluation,
                location: entry.location(),
            });
        };
        if let Specifier::Uninterpreted(why) = entry.rule().specifier() {
            push(
                &mut findings,
                FindingKind::Uninterpreted { why: why.clone() },
                example_input(entry),
            );
        }
        if entry.effect() == Effect::Allow {
            if let Some(why) = allows_nothing(rules, entry) {
                push(
                    &mut findings,
                    FindingKind::AllowsNothing { why },
                    example_input(entry),
                );
            }
        }
        if let Specifier::Command(pattern) = entry.rule().specifier() {
            for (kind, command) in command_findings(pattern, entry.text()) {
                push(&mut findings, kind, ("Bash".to_owned(), command));
            }
        }
        if entry.effect() != Effect::Deny {
            let covering = entries
                .iter()
                .enumerate()
                .find(|(_, deny)| deny.effect() == Effect::Deny && covers(deny, entry));
            if let Some((deny, _)) = covering {
                push(
                    &mut findings,
                    FindingKind::CoveredByDeny { deny },
                    example_input(entry),
                );
                continue;
            }
        }
        if entry.effect() == Effect::Ask {
            let broad = entries
                .iter()
                .enumerate()
                .find(|(_, allow)| allow.effect() == Effect::Allow && covers(allow, entry));
            if let Some((allow, _)) = broad {
                push(
                    &mut findings,
                    FindingKind::AskUnderBroadAllow { allow },
                    example_input(entry),
                );
            }
        }
    }
    findings
}

/// Why an allow rule allows nothing, if it does not.
fn allows_nothing(rules: &RuleSet, entry: &RuleEntry) -> Option<&'static str> {
    let rule = entry.rule();
    match (rule.tool(), rule.specifier()) {
        (ToolPattern::McpGlob(_), _) => {
            Some("Claude Code does not allow by an MCP wildcard; name the server (`mcp__server`)")
        }
        (ToolPattern::Exact(name), Specifier::Path(_))
            if matches!(name.as_str(), "Write" | "MultiEdit" | "NotebookEdit") =>
        {
            Some("Claude Code applies no allow rule of this tool to a path; write `Edit(path)`, which covers every editing tool")
        }
        (_, Specifier::Path(pattern)) if pattern.climbs() => {
            Some("a `../` pattern allowed nothing in Claude Code 2.1.328; write the absolute `//path`")
        }
        (_, Specifier::Path(pattern)) if pattern.is_home() && !rules.knows_home() => {
            Some("`~/` needs the home directory, which the rule set is not given")
        }
        (_, Specifier::Command(_))
            if entry
                .text()
                .split_once('(')
                .is_some_and(|(_, spec)| spec.contains(['$', '`'])) =>
        {
            Some("the command it spells has an expansion (`$`, a backquote), which seal cannot see and never allows (Claude Code allows it)")
        }
        _ => None,
    }
}

/// Whether every call `narrow` matches is also matched by `wide` (a sufficient check).
fn covers(wide: &RuleEntry, narrow: &RuleEntry) -> bool {
    let tools = match (wide.rule().tool(), narrow.rule().tool()) {
        (ToolPattern::Any, _) => true,
        (ToolPattern::Exact(_), ToolPattern::Exact(b)) => wide.rule().tool().matches(b),
        (ToolPattern::McpServer(server), ToolPattern::Exact(name)) => {
            wide.rule().tool().matches(name) && !server.is_empty()
        }
        (ToolPattern::McpServer(a), ToolPattern::McpServer(b)) => a == b,
        _ => false,
    };
    if !tools {
        return false;
    }
    match (wide.rule().specifier(), narrow.rule().specifier()) {
        (Specifier::Any, _) => true,
        (Specifier::Command(w), Specifier::Command(n)) => n.covered_by(w),
        (w, n) => w == n,
    }
}

/// A call matched by the rule: its tool and its field.
fn example_input(entry: &RuleEntry) -> (String, String) {
    let rule = entry.rule();
    let tool = match rule.tool() {
        ToolPattern::Exact(name) => name.clone(),
        ToolPattern::McpServer(server) => format!("mcp__{server}__x"),
        ToolPattern::McpGlob(pattern) => pattern.replace('*', "x"),
        ToolPattern::Any => "Bash".to_owned(),
    };
    let input = match rule.specifier() {
        Specifier::Command(pattern) => pattern.example(),
        Specifier::Path(pattern) => pattern.example(),
        Specifier::Domain(pattern) => pattern.example(),
        Specifier::Name(name) => name.clone(),
        Specifier::Any | Specifier::Uninterpreted(_) => match FieldKind::of(&tool) {
            FieldKind::Command => "ls".to_owned(),
            FieldKind::Path => "x".to_owned(),
            FieldKind::Url => "https://example.com/".to_owned(),
            FieldKind::Name => "x".to_owned(),
            FieldKind::ToolOnly => tool.clone(),
        },
    };
    (tool, input)
}

fn evaluate(rules: &RuleSet, tool: &str, input: &str) -> Evaluation {
    let subject = match FieldKind::of(tool) {
        FieldKind::Command => Subject::Command(input),
        FieldKind::Path => Subject::Path(input),
        FieldKind::Url => Subject::Url(input),
        FieldKind::Name => Subject::Name(input),
        FieldKind::ToolOnly => Subject::Opaque,
    };
    rules.evaluate(tool, subject)
}

/// Findings about the text of one command specifier, with their counterexample commands.
fn command_findings(pattern: &CommandPattern, text: &str) -> Vec<(FindingKind, String)> {
    let mut out = Vec::new();
    let specifier = text
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or_default();
    let spelled = specifier.strip_suffix(":*").unwrap_or(specifier);
    let spelled = spelled.strip_suffix(" *").unwrap_or(spelled).to_owned();
    if let Some(word) = pattern
        .words()
        .iter()
        .find(|w| w.contains([';', '&', '|', '\n']))
    {
        out.push((
            FindingKind::Separator { word: word.clone() },
            spelled.clone(),
        ));
    }
    if let Some(why) = pattern.words().first().and_then(|p| never_program(p)) {
        out.push((FindingKind::NeverMatches { why }, pattern.example()));
    }
    if pattern.words().iter().any(|w| w.contains(['\'', '"'])) {
        out.push((FindingKind::LiteralQuotes, spelled.replace(['\'', '"'], "")));
    }
    if spelled.contains(":*") {
        out.push((
            FindingKind::MisplacedPrefixWildcard,
            spelled.replace(":*", ""),
        ));
    }
    out
}

fn never_program(program: &str) -> Option<&'static str> {
    if NEVER_PROGRAMS.contains(&program) {
        Some("the program is a shell keyword or an eval-like builtin")
    } else if !program.is_ascii() {
        Some("the program name is not ASCII")
    } else if program.contains(['$', '`', '(', ')', '<', '>', '{', '}']) {
        Some("the program name holds a shell metacharacter")
    } else if program.starts_with(['~', '=', '#']) {
        Some("the program name starts with `~`, `=` or `#`")
    } else {
        None
    }
}

/// Whether the rule alone (with its effect) fires on `input`.
fn fires_alone(rules: &RuleSet, entry: &RuleEntry, input: &str) -> bool {
    example_outcome(rules.limits(), entry.effect(), entry.text(), input).0
}

/// The rule list (`allow`, `ask`, `deny`) a member `key` of `permissions` that no rule came
/// from ([`RuleSet::ignored_members`](super::RuleSet::ignored_members)) was likely meant to be:
/// the same letters in another case, or at most two edits away.
///
/// ```
/// assert_eq!(seal_policy::rules::closest_list("deney"), Some("deny"));
/// assert_eq!(seal_policy::rules::closest_list("Allow"), Some("allow"));
/// assert_eq!(seal_policy::rules::closest_list("additionalDirs"), None);
/// ```
#[must_use]
pub fn closest_list(key: &str) -> Option<&'static str> {
    ["allow", "ask", "deny"]
        .into_iter()
        .find(|list| key.eq_ignore_ascii_case(list) || edits(key, list) <= 2)
}

/// Levenshtein distance, for short keys (longer ones are never close: `usize::MAX`).
fn edits(a: &str, b: &str) -> usize {
    if a.len() > 32 {
        return usize::MAX;
    }
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut next = Vec::with_capacity(row.len());
        next.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let cost = |at: usize, add: usize| row.get(at).map_or(usize::MAX, |d| d + add);
            let diagonal = cost(j, usize::from(ca != *cb));
            let up = cost(j + 1, 1);
            let left = next.last().map_or(usize::MAX, |d| d + 1);
            next.push(diagonal.min(up).min(left));
        }
        row = next;
    }
    row.last().copied().unwrap_or(usize::MAX)
}
