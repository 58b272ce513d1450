//! Domain specifiers of `WebFetch(domain:...)` and the host of a URL.

use std::fmt;

/// A host pattern: `domain:example.com` matches the host `example.com` only;
/// `domain:*.example.com` matches every host strictly below `example.com` (not the apex);
/// `domain:*` matches every host. Hosts compare in ASCII lowercase, without a trailing dot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainPattern {
    suffix: String,
    subdomains: bool,
}

/// Why a domain specifier was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DomainPatternError {
    /// The specifier does not start with `domain:`.
    MissingDomainPrefix,
    /// The host part is empty or has a character outside `a-z 0-9 . -` (after lowercasing),
    /// or a `*` anywhere but a leading `*.`.
    InvalidHost {
        /// The host part as written.
        host: String,
    },
}

impl fmt::Display for DomainPatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingDomainPrefix => f.write_str("web specifier must start with `domain:`"),
            Self::InvalidHost { host } => write!(
                f,
                "invalid host `{}` (letters, digits, `.`, `-`, and an optional leading `*.`)",
                host.escape_debug()
            ),
        }
    }
}

impl std::error::Error for DomainPatternError {}

impl DomainPattern {
    /// Reads `domain:HOST` or `domain:*.HOST` or `domain:*`.
    ///
    /// # Errors
    ///
    /// [`DomainPatternError`] when the prefix is missing or the host is not a plain DNS name.
    pub fn parse(specifier: &str) -> Result<DomainPattern, DomainPatternError> {
        let host = specifier
            .strip_prefix("domain:")
            .ok_or(DomainPatternError::MissingDomainPrefix)?;
        if host == "*" {
            return Ok(DomainPattern {
                suffix: String::new(),
                subdomains: true,
            });
        }
        let (name, subdomains) = match host.strip_prefix("*.") {
            Some(rest) => (rest, true),
            None => (host, false),
        };
        let name = name.to_ascii_lowercase();
        let name = name.strip_suffix('.').unwrap_or(&name).to_owned();
        if !is_dns_name(&name) {
            return Err(DomainPatternError::InvalidHost {
                host: host.to_owned(),
            });
        }
        Ok(DomainPattern {
            suffix: name,
            subdomains,
        })
    }

    /// Whether the (already lowercased, see [`url_host`](crate::chain::url_host)) host matches.
    #[must_use]
    pub fn matches(&self, host: &str) -> bool {
        if self.suffix.is_empty() {
            return true;
        }
        if self.subdomains {
            host.strip_suffix(&self.suffix)
                .and_then(|head| head.strip_suffix('.'))
                .is_some_and(|head| !head.is_empty())
        } else {
            host == self.suffix
        }
    }

    /// A host this pattern matches, for lint findings.
    #[must_use]
    pub fn example(&self) -> String {
        match (self.subdomains, self.suffix.is_empty()) {
            (_, true) => "https://example.com/".to_owned(),
            (true, false) => format!("https://x.{}/", self.suffix),
            (false, false) => format!("https://{}/", self.suffix),
        }
    }
}

/// Whether `name` is a plain DNS name: labels of lowercase ASCII letters, digits and `-`,
/// none empty.
fn is_dns_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::url_host;

    #[test]
    fn hosts() {
        assert_eq!(url_host("https://Example.COM./x").unwrap(), "example.com");
        assert_eq!(url_host("http://a.b:8080?q").unwrap(), "a.b");
        assert!(url_host("https://evil.com@example.com/").is_err());
        assert!(url_host("https://example.com\\@evil.com/").is_err());
        assert!(url_host("ftp://example.com/").is_err());
        assert!(url_host("https://ex%61mple.com/").is_err());
        assert!(url_host("https:///x").is_err());
    }

    #[test]
    fn patterns() {
        let p = |s: &str| DomainPattern::parse(s).unwrap();
        assert!(p("domain:example.com").matches("example.com"));
        assert!(!p("domain:example.com").matches("a.example.com"));
        assert!(!p("domain:example.com").matches("badexample.com"));
        assert!(p("domain:*.example.com").matches("a.example.com"));
        assert!(!p("domain:*.example.com").matches("example.com"));
        assert!(!p("domain:*.example.com").matches("aexample.com"));
        assert!(p("domain:*").matches("x.y"));
        assert!(DomainPattern::parse("example.com").is_err());
        assert!(DomainPattern::parse("domain:a*.com").is_err());
    }
}
