//! The typed view of a call's arguments that rules and guards bind to, and the one table of
//! which tool carries which field.

use seal_parse::json::Value;

use crate::paths::Access;

/// The part of a call's arguments that permission rules may look at, read from the frozen
/// arguments by [`TOOL_FIELDS`] (the tool name is compared exactly, case included):
///
/// | tool | argument | subject |
/// |---|---|---|
/// | `Bash` | `command` (string) | [`Subject::Command`] |
/// | `Read`, `Edit`, `Write`, `MultiEdit` | `file_path` (string) | [`Subject::Path`] |
/// | `NotebookEdit` | `notebook_path` (string) | [`Subject::Path`] |
/// | `Grep`, `Glob` | `path` (string; `.`, the working directory, when absent) | [`Subject::Path`] |
/// | `WebFetch` | `url` (string) | [`Subject::Url`] |
/// | `Agent`, `Task` | `subagent_type` (string) | [`Subject::Name`] |
/// | `Skill` | `skill` (string) | [`Subject::Name`] |
/// | `NotebookRead` | (`notebook_path`, read by the path guards only) | [`Subject::Opaque`] |
/// | any other tool | | [`Subject::Opaque`] |
///
/// Rules never see a serialized blob of all the arguments. A tool of the table with a subject
/// kind whose argument is missing or not a string (a string holding a lone surrogate included) gives
/// [`Subject::Unreadable`]: a rule with a specifier must never allow such a call. The view
/// borrows the frozen arguments, so reading it copies nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subject<'a> {
    /// The shell command string, exactly as given (segmentation is the rules' business).
    Command(&'a str),
    /// The file path, exactly as given (canonicalization is the rules' business).
    Path(&'a str),
    /// The URL, exactly as given; its host, when it can be read with certainty, is
    /// [`url_host`]'s.
    Url(&'a str),
    /// The agent type or skill the call names.
    Name(&'a str),
    /// A tool of the table whose argument is missing or not a string.
    Unreadable {
        /// The argument that was expected.
        field: &'static str,
    },
    /// A tool outside the table (or a caller with no field to give): rules can match it by
    /// name only.
    Opaque,
}

/// One row of [`TOOL_FIELDS`]: the argument of a tool that gives its subject, and what the
/// tool does to the file it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ToolField {
    /// The tool's name (compared exactly).
    pub tool: &'static str,
    /// The argument holding the subject.
    pub field: &'static str,
    /// What the argument is, as rules and the approval card read it; `None` for a tool whose
    /// rules name the tool only (its call's subject is [`Subject::Opaque`]) though the path
    /// guards read its path.
    pub kind: Option<SubjectKind>,
    /// What a file tool does to the file at its path, as the path guards read it (an edit
    /// shows the lines it changes, so it reads too); `None` for a tool whose argument names
    /// no file.
    pub access: Option<Access>,
    /// Whether the tool searches: it reads every file below its path, and without a path it
    /// searches the working directory (the subject is then the path `.`). For any other tool an
    /// absent argument is unreadable.
    pub searches: bool,
}

/// Which argument of which tool gives which subject, and what a file tool does to its file:
/// the one table the chain, the rules, the approval card and the path guards read (see
/// [`Subject`]). `NotebookRead` (a tool of older Claude Code versions) is read by the path
/// guards only: rules name it by its name alone.
pub const TOOL_FIELDS: &[ToolField] = &[
    row("Bash", "command", SubjectKind::Command),
    file("Read", "file_path", Access::Read),
    ToolField {
        kind: None,
        ..file("NotebookRead", "notebook_path", Access::Read)
    },
    file("Edit", "file_path", Access::Both),
    file("Write", "file_path", Access::Write),
    file("MultiEdit", "file_path", Access::Both),
    file("NotebookEdit", "notebook_path", Access::Both),
    ToolField {
        searches: true,
        ..file("Grep", "path", Access::Read)
    },
    ToolField {
        searches: true,
        ..file("Glob", "path", Access::Read)
    },
    row("WebFetch", "url", SubjectKind::Url),
    row("Agent", "subagent_type", SubjectKind::Name),
    row("Task", "subagent_type", SubjectKind::Name),
    row("Skill", "skill", SubjectKind::Name),
];

const fn row(tool: &'static str, field: &'static str, kind: SubjectKind) -> ToolField {
    ToolField {
        tool,
        field,
        kind: Some(kind),
        access: None,
        searches: false,
    }
}

const fn file(tool: &'static str, field: &'static str, access: Access) -> ToolField {
    ToolField {
        access: Some(access),
        ..row(tool, field, SubjectKind::Path)
    }
}

/// The kind of subject a tool of [`TOOL_FIELDS`] yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubjectKind {
    /// A shell command.
    Command,
    /// A file path.
    Path,
    /// A URL.
    Url,
    /// An agent type or a skill.
    Name,
}

impl ToolField {
    /// The row of `tool`, if the table has one.
    #[must_use]
    pub fn of(tool: &str) -> Option<&'static ToolField> {
        TOOL_FIELDS.iter().find(|row| row.tool == tool)
    }

    /// Whether `tool` is a search tool of the table.
    #[must_use]
    pub fn is_search(tool: &str) -> bool {
        ToolField::of(tool).is_some_and(|row| row.searches)
    }
}

/// The host of an `http` or `https` URL, lowercased and without one trailing dot, or why it
/// cannot be trusted to be the host a fetcher would contact. The scheme is matched in any case;
/// the authority ends at the first `/`, `?` or `#`, and a numeric port is dropped. Refused:
/// another scheme, a backslash anywhere in the URL (browsers read it as `/`), user information
/// (an `@` in the authority), a port that is not a number, an empty host or label, a host with
/// any byte other than ASCII letters, digits, `.` and `-` (so percent-encoding, non-ASCII,
/// whitespace and control characters are all refused), or a bracketed IP literal. Strict on
/// purpose: a URL a lenient parser reads differently never matches a rule.
///
/// # Errors
/// A static reason when the URL is refused.
pub fn url_host(url: &str) -> Result<String, &'static str> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err("not an http or https URL");
    };
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return Err("not an http or https URL");
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, _) = rest.split_at_checked(end).unwrap_or((rest, ""));
    if authority.contains('@') {
        return Err("URL with user info");
    }
    if rest.contains('\\') {
        return Err("URL with a backslash");
    }
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        Some(_) => return Err("URL with an invalid port"),
        None => authority,
    };
    let host = host.strip_suffix('.').unwrap_or(host);
    let dns_name = !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
        });
    if !dns_name {
        return Err("URL host is not a plain DNS name");
    }
    Ok(host.to_ascii_lowercase())
}

/// The host of `url` as [`url_host`] reads it, or `None` when it refuses the URL.
#[must_use]
pub fn url_domain(url: &str) -> Option<String> {
    url_host(url).ok()
}

/// The subject of a call of `tool` with `arguments`, by [`TOOL_FIELDS`].
pub(crate) fn subject_of<'a>(tool: &str, arguments: &'a Value<'_>) -> Subject<'a> {
    let Some((row, kind)) = ToolField::of(tool).and_then(|row| Some((row, row.kind?))) else {
        return Subject::Opaque;
    };
    let value = arguments
        .as_object()
        .and_then(|object| object.get(row.field));
    let text = match (value, row.searches) {
        (Some(value), _) => value.as_str(),
        (None, true) => Some("."),
        (None, false) => None,
    };
    let Some(text) = text else {
        return Subject::Unreadable { field: row.field };
    };
    match kind {
        SubjectKind::Command => Subject::Command(text),
        SubjectKind::Path => Subject::Path(text),
        SubjectKind::Url => Subject::Url(text),
        SubjectKind::Name => Subject::Name(text),
    }
}

#[cfg(test)]
mod tests {
    use super::{url_domain, url_host, Access, SubjectKind, ToolField, TOOL_FIELDS};

    #[test]
    fn file_tools_as_the_path_guards_read_them() {
        let file_tools: Vec<_> = TOOL_FIELDS
            .iter()
            .filter_map(|row| Some((row.tool, row.field, row.access?, row.searches)))
            .collect();
        assert_eq!(
            file_tools,
            [
                ("Read", "file_path", Access::Read, false),
                ("NotebookRead", "notebook_path", Access::Read, false),
                ("Edit", "file_path", Access::Both, false),
                ("Write", "file_path", Access::Write, false),
                ("MultiEdit", "file_path", Access::Both, false),
                ("NotebookEdit", "notebook_path", Access::Both, false),
                ("Grep", "path", Access::Read, true),
                ("Glob", "path", Access::Read, true),
            ]
        );
        // Rules name `NotebookRead` only; every other file tool's subject is its path.
        for row in TOOL_FIELDS.iter().filter(|row| row.access.is_some()) {
            let kind = (row.tool != "NotebookRead").then_some(SubjectKind::Path);
            assert_eq!(row.kind, kind, "{}", row.tool);
        }
        assert_eq!(ToolField::of("NotebookRead").and_then(|row| row.kind), None);
    }

    #[test]
    fn domains_read_with_certainty_or_not_at_all() {
        let cases: &[(&str, Option<&str>)] = &[
            ("https://Example.COM/x", Some("example.com")),
            ("HTTP://example.com.:8080?q", Some("example.com")),
            ("https://example.com:/", Some("example.com")),
            ("https://user:pw@example.com/", None),
            ("http://evil.com\\@good.com/", None),
            ("http://good.com/a\\b", None),
            ("http://good.com#@evil.com", Some("good.com")),
            ("http://good.com/@evil.com", Some("good.com")),
            ("https://exam%70le.com/", None),
            ("https://ex\tample.com/", None),
            ("https://[::1]/", None),
            (
                "https://xn--e1afmkfd.xn--p1ai/",
                Some("xn--e1afmkfd.xn--p1ai"),
            ),
            ("https://\u{0435}xample.com/", None),
            ("ftp://example.com/", None),
            ("example.com", None),
            ("https:///path", None),
            ("https://example.com:80x/", None),
            ("https://a..b/", None),
            ("https://a../", None),
            ("https://.a/", None),
            ("https://./", None),
        ];
        for (url, want) in cases {
            assert_eq!(url_domain(url).as_deref(), *want, "{url}");
            assert_eq!(url_host(url).ok().as_deref(), *want, "{url}");
        }
    }
}
