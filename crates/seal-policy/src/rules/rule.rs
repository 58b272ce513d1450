//! One rule as written (`Tool`, `Tool(specifier)`, `mcp__server__tool`) and what it binds to.

use std::fmt;

use super::command::CommandPattern;
use super::domain::DomainPattern;
use super::path::PathPattern;
use super::wildcard::chars_match;
use crate::chain::{SubjectKind, ToolField};

/// The tool whose specifier is a command pattern ([`CommandPattern`]).
pub const COMMAND_TOOL: &str = "Bash";

/// The tool whose specifier is a domain pattern ([`DomainPattern`]).
pub const WEB_TOOL: &str = "WebFetch";

/// The typed field a tool's specifier binds to, decided by the tool's name through the one
/// table of which tool carries which field ([`TOOL_FIELDS`](crate::chain::TOOL_FIELDS)). The
/// search tools' field is the path searched, which `Read(path)` rules cover (as Claude Code
/// applies Read rules to the tools that read files); their own specifiers (`Grep(x)`,
/// `Glob(x)`) are uninterpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// `Bash`: the command line.
    Command,
    /// The file and search tools: the path.
    Path,
    /// `WebFetch`: the URL's host.
    Url,
    /// `Agent`, `Task` and `Skill`: the agent type or skill the call names.
    Name,
    /// Any other tool: rules name the tool only.
    ToolOnly,
}

impl FieldKind {
    /// The field kind of the tool called `tool`.
    #[must_use]
    pub fn of(tool: &str) -> FieldKind {
        match ToolField::of(tool).and_then(|row| row.kind) {
            Some(SubjectKind::Command) => FieldKind::Command,
            Some(SubjectKind::Path) => FieldKind::Path,
            Some(SubjectKind::Url) => FieldKind::Url,
            Some(SubjectKind::Name) => FieldKind::Name,
            None => FieldKind::ToolOnly,
        }
    }
}

/// Which tools a rule names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolPattern {
    /// `*`: every tool.
    Any,
    /// One tool by its exact (case-sensitive) name.
    Exact(String),
    /// `mcp__server` or `mcp__server__*`: every tool of one MCP server, i.e. every tool name
    /// beginning `mcp__server__`.
    McpServer(String),
    /// An MCP name with `*` elsewhere (`mcp__*`, `mcp__git*__read`): every tool name the name
    /// matches, `*` standing for any run of characters.
    McpGlob(String),
}

/// The file-editing tools an `Edit(path)` rule covers, and that a deny or ask `Read(path)`
/// rule covers too (editing a file reads it).
const EDITING_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

impl ToolPattern {
    /// Whether the tool called `tool` is named by this pattern, by name alone (the aliases a
    /// rule also names are [`Rule::names`]'s).
    #[must_use]
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            ToolPattern::Any => true,
            ToolPattern::Exact(name) => {
                name.len() == tool.len()
                    && name.as_bytes().first() == tool.as_bytes().first()
                    && name == tool
            }
            ToolPattern::McpGlob(pattern) => {
                tool.starts_with("mcp__") && chars_match(pattern, tool, false)
            }
            ToolPattern::McpServer(server) => tool
                .strip_prefix("mcp__")
                .and_then(|rest| rest.strip_prefix(server.as_str()))
                .and_then(|rest| rest.strip_prefix("__"))
                .is_some_and(|name| !name.is_empty()),
        }
    }
}

/// What a rule says about the tool's typed field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Specifier {
    /// No specifier (or `(*)`): every call of the tool.
    Any,
    /// A command pattern (`Bash(...)`), matched per segment.
    Command(CommandPattern),
    /// A path pattern (file tools).
    Path(PathPattern),
    /// A domain pattern (`WebFetch(domain:...)`).
    Domain(DomainPattern),
    /// One name, compared exactly (`Agent(Explore)`, `Skill(x)`).
    Name(String),
    /// A specifier seal does not interpret (on a tool seal reads no field of, or in a form it
    /// cannot read, such as `WebFetch(https://...)` or `Read(c:\\x)`), with why. The rule
    /// still loads: as an allow rule it allows nothing; as a deny or ask rule it makes every
    /// call of the tool ask (the safe reading). The lint names it.
    Uninterpreted(String),
}

/// A parsed rule: which tools, and what about their typed field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    tool: ToolPattern,
    specifier: Specifier,
}

/// Why a rule's text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RuleSyntaxError {
    /// The rule is empty.
    Empty,
    /// Leading or trailing whitespace around the rule.
    SurroundingWhitespace,
    /// The tool name is empty or holds whitespace or a parenthesis.
    InvalidToolName {
        /// The name as written.
        name: String,
    },
    /// A `(` without the rule ending in `)`, or a `)` without a `(`.
    UnbalancedParenthesis,
    /// `Tool()`: an empty specifier.
    EmptySpecifier,
    /// The rule is longer than [`RuleLimits::max_rule_bytes`](super::RuleLimits::max_rule_bytes).
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The set already holds [`RuleLimits::max_rules`](super::RuleLimits::max_rules) rules.
    TooManyRules {
        /// The limit.
        max: usize,
    },
}

impl fmt::Display for RuleSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("empty rule"),
            Self::SurroundingWhitespace => f.write_str("whitespace around the rule"),
            Self::InvalidToolName { name } => {
                write!(f, "invalid tool name `{}`", name.escape_debug())
            }
            Self::UnbalancedParenthesis => {
                f.write_str("unbalanced parenthesis (expected `Tool` or `Tool(specifier)`)")
            }
            Self::EmptySpecifier => f.write_str("empty specifier `()`"),
            Self::TooLong { len, max } => {
                write!(f, "rule of {len} bytes is longer than the limit of {max}")
            }
            Self::TooManyRules { max } => write!(f, "more than {max} rules"),
        }
    }
}

impl std::error::Error for RuleSyntaxError {}

impl Rule {
    /// Parses one rule as written in a rule file. Claude Code 2.1.328 loads every rule text
    /// (an unbalanced `Bash(git:*`, an empty `Bash()`, a rule with spaces around it), so this
    /// never fails on the text: a rule that does not follow the syntax is
    /// [`Specifier::Uninterpreted`] (with the syntax error as the reason) on the tool its text
    /// begins with, so that it allows nothing and, as a deny or ask rule, makes that tool ask.
    ///
    /// ```
    /// use seal_policy::rules::{Rule, Specifier};
    ///
    /// let rule = Rule::parse("Bash(git log:*)")?;
    /// assert!(matches!(rule.specifier(), Specifier::Command(_)));
    /// let unbalanced = Rule::parse("Bash(git log")?;
    /// assert!(matches!(unbalanced.specifier(), Specifier::Uninterpreted(_)));
    /// # Ok::<(), seal_policy::rules::RuleSyntaxError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// None today: the `Result` is kept for the limits a caller may add.
    pub fn parse(text: &str) -> Result<Rule, RuleSyntaxError> {
        match Rule::parse_strict(text) {
            Ok(rule) => Ok(rule),
            Err(error) => {
                let trimmed = text.trim();
                let name = trimmed.split('(').next().unwrap_or_default().trim();
                let tool =
                    tool_pattern(name).unwrap_or_else(|_| ToolPattern::Exact(name.to_owned()));
                Ok(Rule {
                    tool,
                    specifier: Specifier::Uninterpreted(error.to_string()),
                })
            }
        }
    }

    /// The syntax of section 1 of spec/policy-rules.md, strictly.
    fn parse_strict(text: &str) -> Result<Rule, RuleSyntaxError> {
        if text.is_empty() {
            return Err(RuleSyntaxError::Empty);
        }
        if text.trim() != text {
            return Err(RuleSyntaxError::SurroundingWhitespace);
        }
        let (name, specifier) = match text.split_once('(') {
            Some((name, rest)) => {
                let inner = rest
                    .strip_suffix(')')
                    .ok_or(RuleSyntaxError::UnbalancedParenthesis)?;
                (name, Some(inner))
            }
            None if text.contains(')') => return Err(RuleSyntaxError::UnbalancedParenthesis),
            None => (text, None),
        };
        let tool = tool_pattern(name)?;
        let specifier = match specifier {
            None | Some("*") => Specifier::Any,
            Some("") => return Err(RuleSyntaxError::EmptySpecifier),
            Some(spec) => specifier_of(&tool, name, spec),
        };
        Ok(Rule { tool, specifier })
    }

    /// The tools the rule names.
    #[must_use]
    pub fn tool(&self) -> &ToolPattern {
        &self.tool
    }

    /// Whether the rule, with `effect`, applies to a call of `tool`, as Claude Code 2.1.328
    /// applied its rules (each point checked against it, deny and ask read widely where it
    /// is unclear):
    ///
    /// - `Agent` and `Task` name each other;
    /// - `Edit(path)` covers `Edit`, `Write`, `MultiEdit` and `NotebookEdit`, and as an allow
    ///   rule also `Read` (an allow `Edit(src/**)` let `Read` of `src/a.ts` through); a bare
    ///   `Edit` allow names `Edit` alone (Claude Code asked for a `Write` under it), a bare
    ///   `Edit` deny or ask every editing tool;
    /// - `Write(path)`, `MultiEdit(path)` and `NotebookEdit(path)` allow nothing (Claude Code
    ///   asked under each); as deny or ask rules they name their own tool;
    /// - a deny or ask `Read(path)` also covers the editing tools (Claude Code denied `Edit`
    ///   and `Write` of `src/a.ts` under a deny `Read(src/**)`);
    /// - an MCP name with a wildcard other than `mcp__server__*` (`mcp__*`) allows nothing
    ///   (Claude Code asked under an allow `mcp__*`); as deny or ask it names what it matches.
    #[must_use]
    pub fn names(&self, effect: super::Effect, tool: &str) -> bool {
        let allow = effect == super::Effect::Allow;
        let specified = matches!(
            self.specifier,
            Specifier::Path(_) | Specifier::Uninterpreted(_)
        );
        let name = match &self.tool {
            ToolPattern::Exact(name) => name.as_str(),
            ToolPattern::McpGlob(_) => return !allow && self.tool.matches(tool),
            other => return other.matches(tool),
        };
        if name == tool {
            return !(allow
                && matches!(self.specifier, Specifier::Path(_))
                && matches!(name, "Write" | "MultiEdit" | "NotebookEdit"));
        }
        match name {
            "Agent" => tool == "Task",
            "Task" => tool == "Agent",
            "Edit" if specified || !allow => {
                EDITING_TOOLS.contains(&tool) || (allow && specified && tool == "Read")
            }
            "Read"
                if matches!(self.specifier, Specifier::Path(_)) && ToolField::is_search(tool) =>
            {
                true
            }
            "Read" if specified && !allow => EDITING_TOOLS.contains(&tool),
            _ => false,
        }
    }

    /// What the rule says about the tool's field.
    #[must_use]
    pub fn specifier(&self) -> &Specifier {
        &self.specifier
    }

    /// The kind of example a rule file gives for this rule in `match` / `not_match`: a command,
    /// a path, a URL, or (for rules naming tools only) a tool name.
    #[must_use]
    pub fn example_kind(&self) -> FieldKind {
        match (&self.tool, &self.specifier) {
            (ToolPattern::Exact(name), _) => FieldKind::of(name),
            _ => FieldKind::ToolOnly,
        }
    }
}

/// What a specifier means on the tool called `name`; never fails (an uninterpreted specifier
/// is a value).
fn specifier_of(tool: &ToolPattern, name: &str, spec: &str) -> Specifier {
    let uninterpreted = |why: &str| Specifier::Uninterpreted(why.to_owned());
    let ToolPattern::Exact(_) = tool else {
        return uninterpreted("seal reads no field of the tools this name covers");
    };
    if ToolField::is_search(name) {
        return uninterpreted("seal reads the search path of this tool through Read rules only");
    }
    match FieldKind::of(name) {
        FieldKind::Command => {
            let pattern = CommandPattern::parse(spec);
            if pattern.is_any() {
                Specifier::Any
            } else {
                Specifier::Command(pattern)
            }
        }
        FieldKind::Path => match PathPattern::parse(spec) {
            Ok(pattern) => Specifier::Path(pattern),
            Err(e) => Specifier::Uninterpreted(e.to_string()),
        },
        FieldKind::Url => match DomainPattern::parse(spec) {
            Ok(pattern) => Specifier::Domain(pattern),
            Err(e) => Specifier::Uninterpreted(e.to_string()),
        },
        // `Skill(x:*)` and other wildcard names: Claude Code's reading is not known.
        FieldKind::Name if spec.contains('*') => {
            uninterpreted("a wildcard in an agent or skill name")
        }
        FieldKind::Name => Specifier::Name(spec.to_owned()),
        FieldKind::ToolOnly => uninterpreted("seal reads no field of this tool"),
    }
}

fn tool_pattern(name: &str) -> Result<ToolPattern, RuleSyntaxError> {
    if name == "*" {
        return Ok(ToolPattern::Any);
    }
    if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        return Err(RuleSyntaxError::InvalidToolName {
            name: name.to_owned(),
        });
    }
    if let Some(rest) = name.strip_prefix("mcp__") {
        let plain = rest.strip_suffix("__*").unwrap_or(rest);
        if !plain.contains("__") && is_name(plain) {
            return Ok(ToolPattern::McpServer(plain.to_owned()));
        }
        if name.contains('*') {
            return Ok(ToolPattern::McpGlob(name.to_owned()));
        }
    }
    Ok(ToolPattern::Exact(name.to_owned()))
}

fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(Rule::parse("Bash").unwrap().specifier, Specifier::Any);
        assert_eq!(Rule::parse("Bash(*)").unwrap().specifier, Specifier::Any);
        assert_eq!(Rule::parse("Bash(:*)").unwrap().specifier, Specifier::Any);
        assert_eq!(Rule::parse("*").unwrap().tool, ToolPattern::Any);
        assert_eq!(
            Rule::parse("mcp__github").unwrap().tool,
            ToolPattern::McpServer("github".into())
        );
        assert_eq!(
            Rule::parse("mcp__github__*").unwrap().tool,
            ToolPattern::McpServer("github".into())
        );
        assert!(Rule::parse("mcp__github")
            .unwrap()
            .tool
            .matches("mcp__github__create_issue"));
        assert!(!Rule::parse("mcp__github")
            .unwrap()
            .tool
            .matches("mcp__githubx__a"));
        for malformed in ["Bash()", " Bash", "Bash)", "Bash(git:*", "", "Ba sh"] {
            let rule = Rule::parse(malformed).unwrap();
            assert!(
                matches!(rule.specifier, Specifier::Uninterpreted(_)),
                "{malformed}"
            );
        }
        assert_eq!(
            Rule::parse(" Bash(mkdir:*) ").unwrap().tool,
            ToolPattern::Exact("Bash".into())
        );
        let uninterpreted = |r: &str| {
            matches!(
                Rule::parse(r).unwrap().specifier,
                Specifier::Uninterpreted(_)
            )
        };
        for r in [
            "mcp__github__x(y)",
            "WebFetch(example.com)",
            "Skill(x:*)",
            "mcp__*(x)",
        ] {
            assert!(uninterpreted(r), "{r}");
        }
        assert!(!uninterpreted("Read(~/.ssh/**)"));
        let mcp = Rule::parse("mcp__*").unwrap();
        assert!(mcp.tool.matches("mcp__a__b"));
        assert!(!mcp.tool.matches("Bash"));
        use crate::rules::Effect::{Allow, Deny};
        let names = |r: &str, effect, tool| Rule::parse(r).unwrap().names(effect, tool);
        assert!(!names("mcp__*", Allow, "mcp__a__b"));
        assert!(names("mcp__*", Deny, "mcp__a__b"));
        assert!(names("Edit(src/**)", Allow, "Write") && names("Edit(x)", Allow, "NotebookEdit"));
        assert!(names("Edit(src/**)", Allow, "Read") && !names("Edit(src/**)", Deny, "Read"));
        assert!(!names("Edit", Allow, "Write") && names("Edit", Deny, "Write"));
        assert!(!names("Write(x)", Allow, "Write") && names("Write(x)", Deny, "Write"));
        assert!(!names("Write(x)", Deny, "Edit"));
        assert!(names("Read(x)", Deny, "Edit") && !names("Read(x)", Allow, "Edit"));
        assert!(!names("Read", Deny, "Edit"));
        assert!(names("Task", Allow, "Agent") && names("Agent(x)", Deny, "Task"));
    }
}
