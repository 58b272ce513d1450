//! Loading a rule set from JSON, with line-precise errors and examples checked at load.

use std::fmt;

use seal_parse::json::{self, JsonErrorKind, Value};

use super::evaluation::{AskCause, Evaluation};
use super::locate::{line_column, locate, LineCursor, Located};
use super::rule::{FieldKind, RuleSyntaxError, ToolPattern};
use super::set::{Location, RuleSet};
use super::{Effect, RuleLimits};
use crate::chain::Subject;

/// A rule file that was refused, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesError {
    /// 1-based line of the offending value (or of the JSON error).
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
    /// Byte offset.
    pub offset: usize,
    /// What is wrong.
    pub kind: RulesErrorKind,
}

/// Why a rule file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RulesErrorKind {
    /// The document is not strict JSON (duplicate keys included), per `seal_parse::json`.
    Json(JsonErrorKind),
    /// A value of the wrong JSON type.
    WrongType {
        /// Where, as a JSON path (`$.permissions.allow[2]`).
        path: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A required member is missing.
    MissingMember {
        /// The object's JSON path.
        path: String,
        /// The member.
        key: &'static str,
    },
    /// A member that the format does not have.
    UnknownMember {
        /// The object's JSON path.
        path: String,
        /// The member as written.
        key: String,
    },
    /// A rule that does not parse.
    Rule {
        /// The rule as written.
        rule: String,
        /// Why.
        error: RuleSyntaxError,
    },
    /// More `match` plus `not_match` examples on one rule than
    /// [`RuleLimits::max_examples`].
    TooManyExamples {
        /// The rule as written.
        rule: String,
        /// The limit.
        max: usize,
    },
    /// A `match` example the rule does not match, or a `not_match` example it matches.
    ExampleFailed {
        /// The rule as written.
        rule: String,
        /// The example.
        example: String,
        /// `true` for a `match` example, `false` for `not_match`.
        should_match: bool,
        /// What evaluating the rule alone on the example gave.
        got: String,
    },
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.kind
        )
    }
}

impl fmt::Display for RulesErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Json(kind) => write!(f, "invalid JSON ({})", kind.name()),
            Self::WrongType { path, expected } => write!(f, "`{path}` must be {expected}"),
            Self::MissingMember { path, key } => write!(f, "`{path}` has no member `{key}`"),
            Self::UnknownMember { path, key } => {
                write!(f, "unknown member `{}` in `{path}`", key.escape_debug())
            }
            Self::Rule { rule, error } => write!(f, "rule `{}`: {error}", rule.escape_debug()),
            Self::TooManyExamples { rule, max } => write!(
                f,
                "rule `{}` has more than {max} examples",
                rule.escape_debug()
            ),
            Self::ExampleFailed {
                rule,
                example,
                should_match,
                got,
            } => write!(
                f,
                "rule `{}` {} example `{}` (alone it gives: {})",
                rule.escape_debug(),
                if *should_match {
                    "does not match its"
                } else {
                    "matches its not_match"
                },
                example.escape_debug(),
                got
            ),
        }
    }
}

impl std::error::Error for RulesError {}

impl RuleSet {
    /// Loads `{"permissions": {"allow": [...], "ask": [...], "deny": [...]}}`.
    ///
    /// Each list is optional; each entry is a rule string, or an object
    /// `{"rule": "...", "match": [...], "not_match": [...]}` whose examples (commands, paths,
    /// URLs, or tool names, after the rule's tool) are checked now: the rule alone must give its
    /// effect on every `match` example and must not on any `not_match` one. Other top-level
    /// members are ignored (settings files carry other sections), and so are the members of
    /// `permissions` other than the three lists (`additionalDirectories`, `defaultMode`, a
    /// nested `permissions`: Claude Code does not read rules from them either). A rule seal
    /// cannot interpret loads ([`Specifier::Uninterpreted`](super::Specifier::Uninterpreted)).
    /// Rules keep document order.
    ///
    /// # Errors
    ///
    /// [`RulesError`] with the line and column of the offending value: strict JSON (duplicate
    /// keys are refused), types, members, rule syntax, limits, failing examples.
    pub fn from_json(input: &[u8], limits: &RuleLimits) -> Result<RuleSet, RulesError> {
        let value = json::parse(input, &limits.json).map_err(|e| RulesError {
            kind: RulesErrorKind::Json(e.kind),
            ..at(input, e.offset)
        })?;
        let located = locate(input, limits.json.max_depth).unwrap_or(super::locate::Located {
            start: 0,
            node: super::locate::Node::Scalar,
        });
        let mut loader = Loader {
            input,
            limits,
            set: RuleSet::new(*limits),
            lines: LineCursor::new(),
        };
        loader.document(&value, &located)?;
        Ok(loader.set)
    }
}

fn at(input: &[u8], offset: usize) -> RulesError {
    let (line, column) = line_column(input, offset);
    RulesError {
        line,
        column,
        offset,
        kind: RulesErrorKind::Json(JsonErrorKind::UnexpectedEnd),
    }
}

struct Loader<'a> {
    input: &'a [u8],
    limits: &'a RuleLimits,
    set: RuleSet,
    /// Line and column of each rule, found in document order.
    lines: LineCursor,
}

impl Loader<'_> {
    fn fail(&self, offset: usize, kind: RulesErrorKind) -> RulesError {
        RulesError {
            kind,
            ..at(self.input, offset)
        }
    }

    fn document(&mut self, value: &Value<'_>, located: &Located) -> Result<(), RulesError> {
        let Some(root) = value.as_object() else {
            return Err(self.fail(
                located.start,
                RulesErrorKind::WrongType {
                    path: "$".into(),
                    expected: "an object",
                },
            ));
        };
        let Some(permissions) = root.get("permissions") else {
            return Err(self.fail(
                located.start,
                RulesErrorKind::MissingMember {
                    path: "$".into(),
                    key: "permissions",
                },
            ));
        };
        let (_, where_permissions) = located.member("permissions").unwrap_or((0, located));
        let Some(lists) = permissions.as_object() else {
            return Err(self.fail(
                where_permissions.start,
                RulesErrorKind::WrongType {
                    path: "$.permissions".into(),
                    expected: "an object",
                },
            ));
        };
        // Members in document order, so rules keep the order they were written in.
        let mut keys: Vec<(usize, &str)> = lists
            .iter()
            .map(|(key, _)| {
                let offset = where_permissions
                    .member(key)
                    .map_or(where_permissions.start, |(o, _)| o);
                (offset, key)
            })
            .collect();
        keys.sort_unstable();
        for (offset, key) in keys {
            let effect = match key {
                "allow" => Effect::Allow,
                "ask" => Effect::Ask,
                "deny" => Effect::Deny,
                // Directories counted as inside the workspace, as Claude Code reads them.
                "additionalDirectories" => {
                    let list = lists.get(key).unwrap_or(&Value::Null);
                    let path = "$.permissions.additionalDirectories";
                    let wrong = RulesErrorKind::WrongType {
                        path: path.into(),
                        expected: "an array of directory paths",
                    };
                    let Some(items) = list.as_array() else {
                        return Err(self.fail(offset, wrong));
                    };
                    for item in items {
                        match item.as_str() {
                            Some(dir) if !dir.is_empty() && !dir.contains('\0') => {
                                self.set.push_added_dir(dir);
                            }
                            _ => return Err(self.fail(offset, wrong.clone())),
                        }
                    }
                    continue;
                }
                // Members Claude Code reads for other purposes.
                "defaultMode" | "disableBypassPermissionsMode" => continue,
                // Anything else (`alow`, `Deny`, a nested `permissions`) no rule comes from:
                // kept for lint, which names it (a misspelt `deny` is a protection missing).
                _ => {
                    let (line, column) = self.lines.at(self.input, offset);
                    self.set.ignore_member(
                        key,
                        Location {
                            line,
                            column,
                            offset,
                        },
                    );
                    continue;
                }
            };
            let list = lists.get(key).unwrap_or(&Value::Null);
            let where_list = where_permissions
                .member(key)
                .map_or(where_permissions, |(_, v)| v);
            self.list(effect, list, where_list)?;
        }
        Ok(())
    }

    fn list(
        &mut self,
        effect: Effect,
        list: &Value<'_>,
        located: &Located,
    ) -> Result<(), RulesError> {
        let path = format!("$.permissions.{effect}");
        let Some(items) = list.as_array() else {
            return Err(self.fail(
                located.start,
                RulesErrorKind::WrongType {
                    path,
                    expected: "an array of rules",
                },
            ));
        };
        for (index, item) in items.iter().enumerate() {
            let where_item = located.element(index).unwrap_or(located);
            self.entry(effect, item, where_item, &format!("{path}[{index}]"))?;
        }
        Ok(())
    }

    fn entry(
        &mut self,
        effect: Effect,
        item: &Value<'_>,
        located: &Located,
        path: &str,
    ) -> Result<(), RulesError> {
        let (text, where_text, examples) = match item {
            Value::String(text) => (text.as_ref(), located, None),
            Value::Object(object) => {
                for (key, _) in object.iter() {
                    if !matches!(key, "rule" | "match" | "not_match") {
                        let offset = located.member(key).map_or(located.start, |(o, _)| o);
                        return Err(self.fail(
                            offset,
                            RulesErrorKind::UnknownMember {
                                path: path.to_owned(),
                                key: key.to_owned(),
                            },
                        ));
                    }
                }
                let Some(rule) = object.get("rule") else {
                    return Err(self.fail(
                        located.start,
                        RulesErrorKind::MissingMember {
                            path: path.to_owned(),
                            key: "rule",
                        },
                    ));
                };
                let where_rule = located.member("rule").map_or(located, |(_, v)| v);
                let Some(text) = rule.as_str() else {
                    return Err(self.fail(
                        where_rule.start,
                        RulesErrorKind::WrongType {
                            path: format!("{path}.rule"),
                            expected: "a string",
                        },
                    ));
                };
                (text, where_rule, Some((object, located)))
            }
            _ => {
                return Err(self.fail(
                    located.start,
                    RulesErrorKind::WrongType {
                        path: path.to_owned(),
                        expected: "a rule string or an object with `rule`",
                    },
                ))
            }
        };
        let (line, column) = self.lines.at(self.input, where_text.start);
        let location = Location {
            line,
            column,
            offset: where_text.start,
        };
        self.set
            .push_at(effect, text, Some(location))
            .map_err(|error| {
                self.fail(
                    where_text.start,
                    RulesErrorKind::Rule {
                        rule: text.to_owned(),
                        error,
                    },
                )
            })?;
        if let Some((object, where_object)) = examples {
            let mut count = 0;
            for (key, should_match) in [("match", true), ("not_match", false)] {
                let Some(list) = object.get(key) else {
                    continue;
                };
                let where_list = where_object.member(key).map_or(where_object, |(_, v)| v);
                let wrong = |me: &Self, offset| {
                    me.fail(
                        offset,
                        RulesErrorKind::WrongType {
                            path: format!("{path}.{key}"),
                            expected: "an array of strings",
                        },
                    )
                };
                let Some(items) = list.as_array() else {
                    return Err(wrong(self, where_list.start));
                };
                for (index, example) in items.iter().enumerate() {
                    let where_example = where_list.element(index).unwrap_or(where_list);
                    let Some(example) = example.as_str() else {
                        return Err(wrong(self, where_example.start));
                    };
                    count += 1;
                    if count > self.limits.max_examples {
                        return Err(self.fail(
                            where_example.start,
                            RulesErrorKind::TooManyExamples {
                                rule: text.to_owned(),
                                max: self.limits.max_examples,
                            },
                        ));
                    }
                    let got = example_outcome(self.limits, effect, text, example);
                    if got.0 != should_match {
                        return Err(self.fail(
                            where_example.start,
                            RulesErrorKind::ExampleFailed {
                                rule: text.to_owned(),
                                example: example.to_owned(),
                                should_match,
                                got: got.1.to_string(),
                            },
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Evaluates the rule alone (with `effect`) on one example; `true` when it gives its effect
/// through the rule itself (an ask caused by an unanalysable example does not count).
pub(super) fn example_outcome(
    limits: &RuleLimits,
    effect: Effect,
    text: &str,
    example: &str,
) -> (bool, Evaluation) {
    let mut alone = RuleSet::new(*limits);
    if let Err(error) = alone.push(effect, text) {
        // Unreachable for rules that loaded; report as a non-match.
        return (
            false,
            Evaluation::Ask(AskCause::Unanalysed(super::Unanalysed {
                input: super::Input::Submitted,
                code: "rule_error",
                reason: error.to_string(),
            })),
        );
    }
    let rule = alone.rules().first().map(|e| e.rule().clone());
    let (tool, kind) = match rule.as_ref().map(|r| (r.tool(), r.example_kind())) {
        Some((ToolPattern::Exact(name), kind)) => (name.as_str(), kind),
        _ => (example, FieldKind::ToolOnly),
    };
    let subject = match kind {
        FieldKind::Command => Subject::Command(example),
        FieldKind::Path => Subject::Path(example),
        FieldKind::Url => Subject::Url(example),
        FieldKind::Name => Subject::Name(example),
        FieldKind::ToolOnly => Subject::Opaque,
    };
    let tool = if kind == FieldKind::ToolOnly {
        example
    } else {
        tool
    };
    let evaluation = alone.evaluate(tool, subject);
    let fired = matches!(
        (&evaluation, effect),
        (Evaluation::Allow(_), Effect::Allow)
            | (Evaluation::Deny(_), Effect::Deny)
            | (Evaluation::Ask(AskCause::Rule(_)), Effect::Ask)
    );
    (fired, evaluation)
}
