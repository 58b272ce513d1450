//! One rule as written (`Tool`, `Tool(specifier)`, `mcp__server__tool`) and what it binds to.

use std::fmt;

use super::command::CommandPattern;
use super::domain::{DomainPattern, DomainPatternError};
use super::path::{PathPattern, PathPatternError};

/// The tools whose specifier is a path pattern ([`PathPattern`]).
/// The same tools as the chain's subject table (`seal_policy::chain::SUBJECT_TABLE`).
pub const PATH_TOOLS: &[&str] = &["Read", "Edit", "Write", "MultiEdit", "NotebookEdit"];

/// The tool whose specifier is a command pattern ([`CommandPattern`]).
pub const COMMAND_TOOL: &str = "Bash";

/// The tool whose specifier is a domain pattern ([`DomainPattern`]).
pub const WEB_TOOL: &str = "WebFetch";

/// The typed field a tool's specifier binds to, decided by the tool's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// `Bash`: the command line.
    Command,
    /// The file tools of [`PATH_TOOLS`]: the path.
    Path,
    /// `WebFetch`: the URL's host.
    Url,
    /// Any other tool: rules name the tool only.
    ToolOnly,
}

impl FieldKind {
    /// The field kind of the tool called `tool`.
    #[must_use]
    pub fn of(tool: &str) -> FieldKind {
        if tool == COMMAND_TOOL {
            FieldKind::Command
        } else if tool == WEB_TOOL {
            FieldKind::Url
        } else if PATH_TOOLS.contains(&tool) {
            FieldKind::Path
        } else {
            FieldKind::ToolOnly
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
}

impl ToolPattern {
    /// Whether the tool called `tool` is named by this pattern.
    #[must_use]
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            ToolPattern::Any => true,
            ToolPattern::Exact(name) => {
                name.len() == tool.len()
                    && name.as_bytes().first() == tool.as_bytes().first()
                    && name == tool
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
    /// The tool name is not `*` nor `[A-Za-z][A-Za-z0-9_-]*` (with an optional `__*` ending for
    /// an MCP server).
    InvalidToolName {
        /// The name as written.
        name: String,
    },
    /// A `(` without the rule ending in `)`, or a `)` without a `(`.
    UnbalancedParenthesis,
    /// `Tool()`: an empty specifier.
    EmptySpecifier,
    /// A specifier on a tool whose specifier kind is not known (only `Bash`, the file tools and
    /// `WebFetch` take one), or on `*` or an MCP tool.
    SpecifierNotSupported {
        /// The tool name.
        tool: String,
    },
    /// The path specifier is invalid.
    Path(PathPatternError),
    /// The domain specifier is invalid.
    Domain(DomainPatternError),
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
            Self::SpecifierNotSupported { tool } => write!(
                f,
                "tool `{}` takes no specifier (only `Bash`, file tools and `WebFetch` do)",
                tool.escape_debug()
            ),
            Self::Path(e) => e.fmt(f),
            Self::Domain(e) => e.fmt(f),
            Self::TooLong { len, max } => {
                write!(f, "rule of {len} bytes is longer than the limit of {max}")
            }
            Self::TooManyRules { max } => write!(f, "more than {max} rules"),
        }
    }
}

impl std::error::Error for RuleSyntaxError {}

impl Rule {
    /// Parses one rule as written in a rule file.
    ///
    /// ```
    /// use seal_policy::rules::{Rule, Specifier};
    ///
    /// let rule = Rule::parse("Bash(git log:*)")?;
    /// assert!(matches!(rule.specifier(), Specifier::Command(_)));
    /// assert!(Rule::parse("Bash(git log").is_err());
    /// # Ok::<(), seal_policy::rules::RuleSyntaxError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`RuleSyntaxError`] naming what is wrong.
    pub fn parse(text: &str) -> Result<Rule, RuleSyntaxError> {
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
            Some(spec) => match (&tool, FieldKind::of(name)) {
                (ToolPattern::Exact(_), FieldKind::Command) => {
                    let pattern = CommandPattern::parse(spec);
                    if pattern.is_any() {
                        Specifier::Any
                    } else {
                        Specifier::Command(pattern)
                    }
                }
                (ToolPattern::Exact(_), FieldKind::Path) => {
                    Specifier::Path(PathPattern::parse(spec).map_err(RuleSyntaxError::Path)?)
                }
                (ToolPattern::Exact(_), FieldKind::Url) => {
                    Specifier::Domain(DomainPattern::parse(spec).map_err(RuleSyntaxError::Domain)?)
                }
                _ => {
                    return Err(RuleSyntaxError::SpecifierNotSupported {
                        tool: name.to_owned(),
                    })
                }
            },
        };
        Ok(Rule { tool, specifier })
    }

    /// The tools the rule names.
    #[must_use]
    pub fn tool(&self) -> &ToolPattern {
        &self.tool
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

fn tool_pattern(name: &str) -> Result<ToolPattern, RuleSyntaxError> {
    if name == "*" {
        return Ok(ToolPattern::Any);
    }
    let invalid = || RuleSyntaxError::InvalidToolName {
        name: name.to_owned(),
    };
    if let Some(rest) = name.strip_prefix("mcp__") {
        let rest = rest.strip_suffix("__*").unwrap_or(rest);
        let (server, tool) = match rest.split_once("__") {
            Some((server, tool)) => (server, Some(tool)),
            None => (rest, None),
        };
        if !is_name(server) || tool.is_some_and(|t| !is_name(t)) {
            return Err(invalid());
        }
        return Ok(match tool {
            Some(_) => ToolPattern::Exact(name.to_owned()),
            None => ToolPattern::McpServer(server.to_owned()),
        });
    }
    let mut chars = name.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic()) || !is_name(name) {
        return Err(invalid());
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
        assert!(Rule::parse("mcp__github__x(y)").is_err());
        assert!(Rule::parse("Bash()").is_err());
        assert!(Rule::parse(" Bash").is_err());
        assert!(Rule::parse("Bash)").is_err());
        assert!(Rule::parse("Task(x)").is_err());
        assert!(Rule::parse("9x").is_err());
        assert!(Rule::parse("WebFetch(example.com)").is_err());
        assert!(Rule::parse("Read(~/.ssh/**)").is_err());
    }
}
