//! The typed view of a call's arguments that rules bind to, and the per-tool mapping that
//! extracts it.

use seal_parse::json::Value;

/// The part of a call's arguments that permission rules may look at.
///
/// Rules never see a serialized blob of all the arguments: they bind to one typed field, taken
/// from the frozen arguments by this mapping (the tool name is compared exactly):
///
/// | tool | argument | subject |
/// |---|---|---|
/// | `Bash` | `command` (string) | [`Subject::Command`] |
/// | `Read`, `Edit`, `Write`, `MultiEdit` | `file_path` (string) | [`Subject::Path`] |
/// | `NotebookEdit` | `notebook_path` (string) | [`Subject::Path`] |
/// | `Grep`, `Glob` | `path` (string; `.`, the working directory, when absent) | [`Subject::Path`] |
/// | `WebFetch` | `url` (string) | [`Subject::Url`] |
/// | any other tool | | [`Subject::Opaque`] |
///
/// A tool of the table whose argument is missing or not a string gives [`Subject::Unreadable`]:
/// a rule with a specifier must never allow such a call. The table is [`SUBJECT_TABLE`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Subject {
    /// The shell command string, exactly as given (segmentation is the rules' business).
    Command(String),
    /// The file path, exactly as given (canonicalization is the rules' business).
    Path(String),
    /// The URL, exactly as given, and its domain when it could be read.
    ///
    /// `domain` is the host of an `http` or `https` URL (scheme in any case), lowercased, with
    /// one trailing dot removed: the authority ends at the first `/`, `?` or `#`, and a numeric
    /// port is dropped. It is `None` whenever parsers could disagree on the host: another
    /// scheme, a backslash anywhere in the URL (browsers read it as `/`), user information (an
    /// `@` in the authority), a port that is not a number, an empty host or label, a host with
    /// any byte other than ASCII letters, digits, `.` and `-` (so percent-encoding, non-ASCII,
    /// whitespace and control characters all give `None`), or a bracketed IP literal. A rule may
    /// allow by domain only when `domain` is `Some`.
    Url {
        /// The URL as given.
        url: String,
        /// The normalized host, or `None` when it could not be read with certainty.
        domain: Option<String>,
    },
    /// A tool of the table whose argument is missing or not a string.
    Unreadable {
        /// The argument that was expected.
        field: &'static str,
    },
    /// A tool outside the table: rules can match it by name only.
    Opaque,
}

/// Which argument of which tool gives which subject (see [`Subject`]).
pub const SUBJECT_TABLE: &[(&str, &str, SubjectKind)] = &[
    ("Bash", "command", SubjectKind::Command),
    ("Read", "file_path", SubjectKind::Path),
    ("Edit", "file_path", SubjectKind::Path),
    ("Write", "file_path", SubjectKind::Path),
    ("MultiEdit", "file_path", SubjectKind::Path),
    ("NotebookEdit", "notebook_path", SubjectKind::Path),
    ("Grep", "path", SubjectKind::Path),
    ("Glob", "path", SubjectKind::Path),
    ("WebFetch", "url", SubjectKind::Url),
];

/// The kind of subject a tool of [`SUBJECT_TABLE`] yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubjectKind {
    /// A shell command.
    Command,
    /// A file path.
    Path,
    /// A URL.
    Url,
}

/// The normalized domain of `url` under the reading documented on [`Subject::Url`], or `None`.
pub fn url_domain(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return None;
    }
    if rest.contains('\\') {
        return None;
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = rest.get(..authority_end)?;
    if authority.contains('@') {
        return None;
    }
    let host = match authority.rsplit_once(':') {
        Some((host, port)) => port
            .bytes()
            .all(|byte| byte.is_ascii_digit())
            .then_some(host)?,
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
    dns_name.then(|| host.to_ascii_lowercase())
}

pub(crate) fn subject_of(tool: &str, arguments: &Value<'_>) -> Subject {
    let Some((_, field, kind)) = SUBJECT_TABLE.iter().find(|(name, _, _)| *name == tool) else {
        return Subject::Opaque;
    };
    let text = arguments
        .as_object()
        .and_then(|object| object.get(field))
        .and_then(Value::as_str);
    let Some(text) = text else {
        // A search without a path searches the working directory.
        let absent = arguments
            .as_object()
            .is_some_and(|object| object.get(field).is_none());
        if absent && matches!(tool, "Grep" | "Glob") {
            return Subject::Path(".".to_owned());
        }
        return Subject::Unreadable { field };
    };
    match kind {
        SubjectKind::Command => Subject::Command(text.to_owned()),
        SubjectKind::Path => Subject::Path(text.to_owned()),
        SubjectKind::Url => Subject::Url {
            url: text.to_owned(),
            domain: url_domain(text),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::url_domain;

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
        }
    }
}
