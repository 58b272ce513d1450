//! What the rules read in a command, form by form: [`RuleSet::explain`].
//!
//! The explanation lists every normalized form of every segment, how a program model reads
//! each form, the payload a form's program runs, and every rule that matches each form, with
//! the decision [`RuleSet::evaluate`] gives. Matches are found by the same predicates the
//! evaluation uses (one per kind of site), so a form shown without a deny match is one no deny
//! rule matches; the decision is the evaluation itself, never recomputed. Every path the
//! command names is listed with the `Read` and `Edit` rules matching it and whether it keeps
//! an allow from applying, by the same resolver.

use seal_parse::shell::{
    carried_code, carried_code_in, model, segment_into, ModelOption, SegmentBuffer,
};

use super::cover::allow_matches;
use super::evaluation::{Evaluation, FormKind, Input, Unanalysed};
use super::matching::{
    command_matches, command_matches_words, launcher_suffixes, matches_form, matches_payload,
    matches_written, payload_words,
};
use super::path_rules::target_option;
use super::rule::{FieldKind, Specifier};
use super::site::labelled_forms;
use super::{Effect, RuleEntry, RuleSet, Subject};
use crate::paths::{command_paths, Access, Cwd, ReadPlace};

/// How a rule matched a site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchedBy {
    /// The rule's pattern matched the words (for allow rules, the canonical form only).
    Words,
    /// The rule, read by the program's model, matched the form as the program reads it.
    Model,
    /// The rule matched the payload the form's program runs (`find -exec`).
    Payload,
    /// The rule has no specifier: it matches every call of the tool.
    Tool,
    /// The rule's literal specifier matched the command as written.
    Written,
    /// The path rule matched a path the command reads or writes.
    Path,
    /// The rule matched a part of an unanalysable command seal can read.
    Readable,
}

impl MatchedBy {
    /// A stable snake_case name: `words`, `model`, `payload`, `tool`, `written`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            MatchedBy::Words => "words",
            MatchedBy::Model => "model",
            MatchedBy::Payload => "payload",
            MatchedBy::Tool => "tool",
            MatchedBy::Written => "written",
            MatchedBy::Path => "path",
            MatchedBy::Readable => "readable",
        }
    }
}

/// One rule matching one site of an explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMatch {
    /// Index of the rule in [`RuleSet::rules`].
    pub rule: usize,
    /// Its effect.
    pub effect: Effect,
    /// The rule as written.
    pub text: String,
    /// How it matched.
    pub by: MatchedBy,
}

/// A form as its program's model reads it (`seal_parse::shell::model`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelReading {
    /// The program, as the model names it.
    pub program: &'static str,
    /// The subcommand words (empty when none).
    pub subcommand: Vec<String>,
    /// The options given, spelt out: `--name` for a long option (abbreviations expanded,
    /// clusters split into the long names the model knows), `-x` for a short option the model
    /// does not know.
    pub options: Vec<String>,
    /// The operands, in order.
    pub operands: Vec<String>,
    /// Whether the model dropped options or operands beyond its limits.
    pub truncated: bool,
}

/// Code a form's program runs that the segmenter does not see as segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CarriedReading {
    /// Why, as a phrase (`runs the awk program in its arguments`).
    pub why: &'static str,
    /// The payload's words, for `find -exec` and its kin, which deny and ask rules read.
    pub payload: Option<Vec<String>>,
}

/// One normalized form of a segment and what the rules read in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormExplanation {
    /// Which form (the first named form it equals).
    pub kind: FormKind,
    /// The other named forms equal to it: each distinct form is listed once
    /// (`SegmentRef::forms().all()`), so `sudo rm t` has its canonical form, also env-stripped
    /// and basename, and `rm t`, wrapper-stripped and normalized.
    pub also: Vec<FormKind>,
    /// Its words, program first.
    pub words: Vec<String>,
    /// The model's reading, when the form's program has a model.
    pub model: Option<ModelReading>,
    /// The code its program carries, when it carries some (no rule may allow the command).
    pub carried: Option<CarriedReading>,
    /// Every deny and ask rule matching the form (by its words, its model reading or its
    /// payload) and, for the canonical form, every allow rule matching its words, in set order.
    pub matches: Vec<RuleMatch>,
}

/// One segment of the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentExplanation {
    /// Byte offset of the segment in the command (in the innermost payload for a payload
    /// segment).
    pub start: usize,
    /// How many `sh -c` payloads deep it stands (0 for the command itself).
    pub payload_depth: usize,
    /// Every form, in the order the rules read them (canonical first), duplicates included:
    /// position `k` is the `k`-th form of `SegmentRef::forms().all()`.
    pub forms: Vec<FormExplanation>,
    /// Why the segment keeps an allow from applying, whatever its paths (a target directory
    /// given by option, which Claude Code asks about); `None` when it does not.
    pub blocks_allow: Option<&'static str>,
}

/// The words of a shell invocation that launched payload segments (`bash -c '...'`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LauncherExplanation {
    /// Index of the first payload segment it launched.
    pub segment: usize,
    /// Its words.
    pub words: Vec<String>,
    /// Each deny or ask rule matching a suffix of the words (program first, also by its
    /// basename), with the suffix; each allow rule matching the full words.
    pub matches: Vec<(String, RuleMatch)>,
    /// Why a suffix of the words runs code seal cannot see (`xargs sh -c ...`), if one does:
    /// no rule may allow the command then.
    pub carried: Option<&'static str>,
}

/// One path a command names, as the rules read it (spec/paths.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathExplanation {
    /// Index of the segment.
    pub segment: usize,
    /// The program that uses it.
    pub program: String,
    /// The path as the program receives it.
    pub word: String,
    /// How the program uses it.
    pub access: Access,
    /// The path, absolute and lexically normalized, when it can be placed.
    pub absolute: Option<String>,
    /// Why it keeps an allow from applying (outside the workspace and no `Read` or `Edit`
    /// allow rule covers it, not placeable, ...); `None` when it does not.
    pub blocks_allow: Option<&'static str>,
    /// The `Read` and `Edit` deny and ask rules matching it.
    pub matches: Vec<RuleMatch>,
}

/// What the rules read in one call, site by site, and the decision they give
/// ([`RuleSet::explain`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// What [`RuleSet::evaluate`] gives on the call.
    pub evaluation: Evaluation,
    /// Rules without a specifier naming the tool: they match every call of it.
    pub tool: Vec<RuleMatch>,
    /// Why the command could not be segmented (no segments are listed then).
    pub unanalysable: Option<Unanalysed>,
    /// Deny and ask rules whose literal specifier matches the command as written.
    pub written: Vec<RuleMatch>,
    /// The segments, in order (payload segments in place), for a command.
    pub segments: Vec<SegmentExplanation>,
    /// The launchers of payload segments.
    pub launchers: Vec<LauncherExplanation>,
    /// Every path the command names, in order.
    pub paths: Vec<PathExplanation>,
    /// For an unanalysable command: the deny and ask rules matching what can be read of it
    /// (its pieces and redirections, spec/shell-segments.md section 9), in the order found.
    pub readable: Vec<RuleMatch>,
}

impl RuleSet {
    /// Explains what the rules read in a call of `tool` whose typed field is `subject`: for
    /// a command, every form of every segment with its model reading, its payload and the
    /// rules that match it, and the launchers of payloads; for every call, the rules without
    /// a specifier, and the decision ([`Explanation::evaluation`], which is
    /// [`RuleSet::evaluate`]'s). For a field that is not a command only the decision and the
    /// tool rules are given. Paths that read-only commands read, matched by `Read` rules,
    /// show in the decision only.
    ///
    /// ```
    /// use seal_policy::rules::{Effect, FormKind, MatchedBy, RuleSet, Subject};
    ///
    /// let mut rules = RuleSet::default();
    /// rules.push(Effect::Allow, "Bash(git:*)")?;
    /// rules.push(Effect::Deny, "Bash(git reset --hard:*)")?;
    /// let explained = rules.explain("Bash", Subject::Command("sudo git -C . reset --ha"));
    /// assert_eq!(explained.evaluation.effect(), Some(Effect::Deny));
    /// let forms = &explained.segments[0].forms;
    /// assert_eq!(forms[0].kind, FormKind::Canonical);
    /// // `git -C . reset --ha`, which is also the normalized form.
    /// let git = forms.iter().find(|f| f.kind == FormKind::WrapperStripped).unwrap();
    /// assert_eq!(git.also, [FormKind::Normalized]);
    /// assert_eq!(git.model.as_ref().unwrap().options, ["--hard"]);
    /// assert!(git.matches.iter().any(|m| m.by == MatchedBy::Model));
    /// # Ok::<(), seal_policy::rules::RuleSyntaxError>(())
    /// ```
    #[must_use]
    pub fn explain(&self, tool: &str, subject: Subject<'_>) -> Explanation {
        let evaluation = self.evaluate(tool, subject);
        let rules: Vec<(usize, &RuleEntry)> = self
            .rules()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.rule().names(e.effect(), tool))
            .collect();
        let found = |index: usize, entry: &RuleEntry, by: MatchedBy| RuleMatch {
            rule: index,
            effect: entry.effect(),
            text: entry.text().to_owned(),
            by,
        };
        let tool_rules = rules
            .iter()
            .filter(|(_, e)| matches!(e.rule().specifier(), Specifier::Any))
            .map(|(i, e)| found(*i, e, MatchedBy::Tool))
            .collect();
        let mut out = Explanation {
            evaluation,
            tool: tool_rules,
            unanalysable: None,
            written: Vec::new(),
            segments: Vec::new(),
            launchers: Vec::new(),
            paths: Vec::new(),
            readable: Vec::new(),
        };
        let (FieldKind::Command, Subject::Command(command)) = (FieldKind::of(tool), subject) else {
            return out;
        };
        let guarding = || rules.iter().filter(|(_, e)| e.effect() != Effect::Allow);
        let mut buffer = SegmentBuffer::new();
        let segments = match segment_into(command, &self.limits().shell, &mut buffer) {
            Ok(segments) => segments,
            Err(e) => {
                out.unanalysable = Some(Unanalysed {
                    input: Input::Submitted,
                    code: e.reason.code(),
                    reason: e.to_string(),
                });
                out.written = guarding()
                    .filter(|(_, e)| matches_written(e, command, false))
                    .map(|(i, e)| found(*i, e, MatchedBy::Written))
                    .collect();
                let mut readable = Vec::new();
                self.readable_matches(
                    self.applicable(tool),
                    command,
                    Input::Submitted,
                    &mut |index, _| {
                        if let Some(entry) = self.rules().get(index) {
                            readable.push(found(index, entry, MatchedBy::Readable));
                        }
                    },
                );
                out.readable = readable;
                return out;
            }
        };
        out.written = guarding()
            .filter(|(_, e)| matches_written(e, command, true))
            .map(|(i, e)| found(*i, e, MatchedBy::Written))
            .collect();
        for seg in segments.iter() {
            let named = seg.forms();
            let named = [
                (FormKind::Canonical, named.canonical()),
                (FormKind::EnvStripped, named.env_stripped()),
                (FormKind::Basename, named.basename()),
                (FormKind::WrapperStripped, named.wrapper_stripped()),
                (FormKind::Normalized, named.normalized()),
            ];
            let mut forms = Vec::new();
            for (kind, form) in labelled_forms(seg) {
                let also = named
                    .iter()
                    .filter(|(other, same)| *other != kind && *same == form)
                    .map(|(other, _)| *other)
                    .collect();
                let modelled = model(form.words());
                let code = carried_code(&form);
                let payload = code.and_then(|code| payload_words(&form, code));
                let mut matches = Vec::new();
                for (index, entry) in &rules {
                    let by = if entry.effect() == Effect::Allow {
                        (kind == FormKind::Canonical && allow_matches(entry, &seg, command))
                            .then_some(MatchedBy::Words)
                    } else if command_matches(entry, &form) {
                        Some(MatchedBy::Words)
                    } else if matches_form(entry, &form, modelled.as_ref()) {
                        Some(MatchedBy::Model)
                    } else if payload
                        .clone()
                        .is_some_and(|payload| matches_payload(entry, payload))
                    {
                        Some(MatchedBy::Payload)
                    } else {
                        None
                    };
                    if let Some(by) = by {
                        matches.push(found(*index, entry, by));
                    }
                }
                forms.push(FormExplanation {
                    kind,
                    also,
                    words: form.to_words(),
                    model: modelled.as_ref().map(reading),
                    carried: code.map(|code| CarriedReading {
                        why: code.why,
                        payload: payload.map(|words| words.map(str::to_owned).collect()),
                    }),
                    matches,
                });
            }
            out.segments.push(SegmentExplanation {
                start: seg.span().start,
                payload_depth: seg.payload_depth(),
                forms,
                blocks_allow: target_option(&seg)
                    .then_some("a target directory given by option, which Claude Code asks about"),
            });
        }
        let mut paths = Vec::new();
        command_paths(segments, &mut |path, reading| {
            let cwd = match reading {
                ReadPlace::In(cwd) => cwd,
                ReadPlace::Unplaced(_) => Cwd::Root,
            };
            let mut matches = Vec::new();
            self.path_rule_matches(path, reading, &mut |index, entry| {
                matches.push(found(index, entry, MatchedBy::Path));
            });
            paths.push(PathExplanation {
                segment: path.segment,
                program: path.program.to_owned(),
                word: path.word.to_owned(),
                access: path.access,
                absolute: self.places().absolute(path.word, cwd).ok(),
                blocks_allow: self.path_blocks_allow(path, reading),
                matches,
            });
        });
        out.paths = paths;
        for launcher in segments.launchers() {
            let mut matches = Vec::new();
            for (program, suffix) in launcher_suffixes(launcher) {
                let words = std::iter::once(program).chain(suffix.clone());
                for (index, entry) in guarding() {
                    if command_matches_words(entry, words.clone()) {
                        let shown = words.clone().collect::<Vec<_>>().join(" ");
                        matches.push((shown, found(*index, entry, MatchedBy::Words)));
                    }
                }
            }
            for (index, entry) in rules.iter().filter(|(_, e)| e.effect() == Effect::Allow) {
                if command_matches_words(entry, launcher.words()) {
                    let shown = launcher.words().collect::<Vec<_>>().join(" ");
                    matches.push((shown, found(*index, entry, MatchedBy::Words)));
                }
            }
            let carried = (0..launcher.words().len())
                .find_map(|start| carried_code_in(launcher.words().skip(start)))
                .map(|code| code.why);
            out.launchers.push(LauncherExplanation {
                segment: launcher.first_segment(),
                words: launcher.words().map(str::to_owned).collect(),
                matches,
                carried,
            });
        }
        out
    }
}

/// The owned reading of a model.
fn reading(modelled: &seal_parse::shell::Modelled<'_>) -> ModelReading {
    ModelReading {
        program: modelled.program(),
        subcommand: modelled.subcommand().map(str::to_owned).collect(),
        options: modelled
            .options()
            .map(|option| match option {
                ModelOption::Long(name) => format!("--{name}"),
                ModelOption::Short(letter) => format!("-{letter}"),
            })
            .collect(),
        operands: modelled.operands().map(str::to_owned).collect(),
        truncated: modelled.truncated(),
    }
}
