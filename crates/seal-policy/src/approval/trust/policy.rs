//! The server's side of the trust decision: which host names and port it answers to, over
//! which scheme, and which API paths need no bearer token.

use std::fmt;

/// Most host names a [`RequestTrust`] accepts.
pub const MAX_TRUSTED_HOSTS: usize = 16;

/// Longest host name, in bytes, brackets of an IPv6 literal included, in the allowlist and in a
/// request's `Host` header (its port apart).
pub const MAX_HOST_BYTES: usize = 255;

/// Most API paths a [`RequestTrust`] lets through without a bearer token.
pub const MAX_OPEN_API_PATHS: usize = 8;

/// The scheme the approval server is reached over; it gives the default port (a `Host` without
/// a port means this one) and the first part of the server's own origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PanelScheme {
    /// Plain HTTP (loopback only): default port 80.
    Http,
    /// HTTPS: default port 443.
    Https,
}

impl PanelScheme {
    /// The scheme as an origin spells it (`http` or `https`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PanelScheme::Http => "http",
            PanelScheme::Https => "https",
        }
    }

    /// The port a URL of this scheme means when it names none.
    #[must_use]
    pub fn default_port(self) -> u16 {
        match self {
            PanelScheme::Http => 80,
            PanelScheme::Https => 443,
        }
    }
}

/// The approval server's configuration for the request-trust decision: the host names it
/// answers to (exact, lowercase), the port it listens on, its scheme, and the API paths that
/// need no bearer token (the pairing exchange). Only [`RequestTrust::new`] builds one, so a
/// value always holds a valid allowlist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestTrust {
    hosts: Vec<String>,
    port: u16,
    scheme: PanelScheme,
    open_api_paths: Vec<String>,
}

/// Why a [`RequestTrust`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestTrustError {
    /// No host name was given.
    NoHosts,
    /// More than [`MAX_TRUSTED_HOSTS`] host names.
    TooManyHosts {
        /// How many were given.
        count: usize,
    },
    /// A host name that is not a lowercase DNS name or IPv4 address without a trailing dot, nor
    /// a bracketed IPv6 literal in lowercase, or is longer than [`MAX_HOST_BYTES`].
    InvalidHost {
        /// The name given.
        value: String,
    },
    /// Port 0.
    InvalidPort,
    /// An open API path that is not `/api/` followed by path characters, or one too many
    /// (more than [`MAX_OPEN_API_PATHS`]).
    InvalidOpenPath {
        /// The path given.
        value: String,
    },
}

impl fmt::Display for RequestTrustError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestTrustError::NoHosts => f.write_str("no trusted host name given"),
            RequestTrustError::TooManyHosts { count } => write!(
                f,
                "{count} trusted host names, at most {MAX_TRUSTED_HOSTS} allowed"
            ),
            RequestTrustError::InvalidHost { value } => {
                write!(f, "invalid trusted host name `{}`", value.escape_debug())
            }
            RequestTrustError::InvalidPort => f.write_str("port 0 cannot be listened on"),
            RequestTrustError::InvalidOpenPath { value } => {
                write!(f, "invalid open API path `{}`", value.escape_debug())
            }
        }
    }
}

impl std::error::Error for RequestTrustError {}

impl RequestTrust {
    /// A configuration answering to `hosts` (each written exactly as a browser sends it in
    /// `Host`, port apart: `127.0.0.1`, `localhost`, `[::1]`) on `port` over `scheme`.
    ///
    /// ```
    /// use seal_policy::approval::trust::{PanelScheme, RequestTrust};
    ///
    /// let trust = RequestTrust::new(&["127.0.0.1", "localhost", "[::1]"], 8917, PanelScheme::Http)?;
    /// assert_eq!(trust.origin_of("localhost"), "http://localhost:8917");
    /// # Ok::<(), seal_policy::approval::trust::RequestTrustError>(())
    /// ```
    ///
    /// # Errors
    /// No host, too many, a host outside the grammar, or port 0.
    pub fn new(
        hosts: &[&str],
        port: u16,
        scheme: PanelScheme,
    ) -> Result<RequestTrust, RequestTrustError> {
        if hosts.is_empty() {
            return Err(RequestTrustError::NoHosts);
        }
        if hosts.len() > MAX_TRUSTED_HOSTS {
            return Err(RequestTrustError::TooManyHosts { count: hosts.len() });
        }
        if port == 0 {
            return Err(RequestTrustError::InvalidPort);
        }
        let mut kept = Vec::with_capacity(hosts.len());
        for host in hosts {
            if !is_canonical_host(host) {
                return Err(RequestTrustError::InvalidHost {
                    value: (*host).to_owned(),
                });
            }
            kept.push((*host).to_owned());
        }
        Ok(RequestTrust {
            hosts: kept,
            port,
            scheme,
            open_api_paths: Vec::new(),
        })
    }

    /// The same configuration, with `path` (an exact path under `/api/`, such as the pairing
    /// exchange) let through without a bearer token. Every other rule still applies to it.
    ///
    /// # Errors
    /// A path not under `/api/`, holding a byte other than ASCII letters, digits and `-._~/`,
    /// or one more than [`MAX_OPEN_API_PATHS`].
    pub fn with_open_api_path(mut self, path: &str) -> Result<RequestTrust, RequestTrustError> {
        let valid = path
            .strip_prefix("/api/")
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(is_path_byte));
        if !valid || self.open_api_paths.len() >= MAX_OPEN_API_PATHS {
            return Err(RequestTrustError::InvalidOpenPath {
                value: path.to_owned(),
            });
        }
        self.open_api_paths.push(path.to_owned());
        Ok(self)
    }

    /// The trusted host names, as given.
    #[must_use]
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// The port the server listens on.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The scheme the server is reached over.
    #[must_use]
    pub fn scheme(&self) -> PanelScheme {
        self.scheme
    }

    /// Whether `path` is an API path let through without a bearer token.
    #[must_use]
    pub fn is_open_api_path(&self, path: &str) -> bool {
        self.open_api_paths.iter().any(|open| open == path)
    }

    /// The server's own origin as reached through `host` (a trusted host name): the scheme,
    /// `://`, the host, and `:` with the port unless it is the scheme's default, as browsers
    /// serialize an origin.
    #[must_use]
    pub fn origin_of(&self, host: &str) -> String {
        if self.port == self.scheme.default_port() {
            format!("{}://{host}", self.scheme.name())
        } else {
            format!("{}://{host}:{}", self.scheme.name(), self.port)
        }
    }

    /// Whether `host` (lowercased, port apart) is one of the trusted names.
    pub(super) fn trusts_host(&self, host: &str) -> bool {
        self.hosts.iter().any(|trusted| trusted == host)
    }
}

/// A host as the allowlist holds it: a lowercase DNS name or IPv4 address (labels of `a-z`,
/// `0-9`, `-`, no empty label, so no trailing dot), or `[`, lowercase hex digits, `:` and `.`,
/// `]`; at most [`MAX_HOST_BYTES`].
fn is_canonical_host(host: &str) -> bool {
    host.len() <= MAX_HOST_BYTES && (is_reg_name(host) || is_ipv6_literal(host))
}

/// Labels of lowercase letters, digits and `-`, none empty.
pub(super) fn is_reg_name(host: &str) -> bool {
    !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        })
}

/// `[`, then lowercase hex digits, `:` and `.` (at least one `:`), then `]`.
pub(super) fn is_ipv6_literal(host: &str) -> bool {
    host.strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .is_some_and(|inner| {
            inner.contains(':')
                && inner.bytes().all(|byte| {
                    byte.is_ascii_digit()
                        || (b'a'..=b'f').contains(&byte)
                        || byte == b':'
                        || byte == b'.'
                })
        })
}

/// A byte an open API path may hold.
fn is_path_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/')
}
