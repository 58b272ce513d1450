//! The request-trust decision: one pure function over a request's method, target and headers.

use std::fmt;

use super::policy::{is_ipv6_literal, is_reg_name, RequestTrust, MAX_HOST_BYTES};

/// Longest request target (path and query), in bytes.
pub const MAX_TARGET_BYTES: usize = 2048;

/// Largest body an API request may declare, in bytes (64 KiB: a response with a WebAuthn
/// assertion fits many times over).
pub const MAX_API_BODY_BYTES: u64 = 64 * 1024;

/// Longest bearer token, in bytes.
pub const MAX_BEARER_BYTES: usize = 512;

/// What a trusted request reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrustedRoute {
    /// The page and its static files (every path outside `/api`).
    Page,
    /// The API (`/api` and every path under `/api/`).
    Api,
}

/// A request that passed every rule of [`decide_trust`]; only that function builds one. It
/// carries what the server still has to check: the bearer token (its validity is the server's
/// business) and the number of body bytes it may read.
#[derive(Clone)]
pub struct TrustedRequest<'a> {
    route: TrustedRoute,
    bearer: Option<&'a str>,
    body_bytes: u64,
}

impl TrustedRequest<'_> {
    /// What the request reaches.
    #[must_use]
    pub fn route(&self) -> TrustedRoute {
        self.route
    }

    /// The bearer token of an API request (`None` on a page request and on an open API path
    /// that came without one). Not yet checked against the server's tokens.
    #[must_use]
    pub fn bearer(&self) -> Option<&str> {
        self.bearer
    }

    /// The body length the request declared (0 when it has no body); never above
    /// [`MAX_API_BODY_BYTES`]. The server reads no more than this.
    #[must_use]
    pub fn body_bytes(&self) -> u64 {
        self.body_bytes
    }
}

impl fmt::Debug for TrustedRequest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrustedRequest")
            .field("route", &self.route)
            .field("bearer", &self.bearer.map(|_| "<redacted>"))
            .field("body_bytes", &self.body_bytes)
            .finish()
    }
}

/// The rule that refused a request. Meant for the operator's log; the browser gets a bare
/// refusal. The rules are checked in the order spec/approval-server.md gives (the order of the
/// variants, the host's grammar apart) and the first that fails is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TrustRule {
    /// The target is not a path starting with `/` of printable ASCII, or is longer than
    /// [`MAX_TARGET_BYTES`].
    Target,
    /// The method is not served on the route (page: `GET`, `HEAD`; API: `GET`, `POST`,
    /// `DELETE`).
    Method,
    /// A header the decision reads appears more than once.
    RepeatedHeader,
    /// A header the decision reads holds a byte outside printable ASCII, space and tab.
    HeaderNotText,
    /// No `Host` header.
    HostMissing,
    /// The `Host` header is not a host with an optional port, or is too long.
    HostMalformed,
    /// The host ends with a dot (refused, not stripped).
    HostTrailingDot,
    /// The host, lowercased, is not one of the trusted names (DNS rebinding; IPv6 forms other
    /// than the trusted one included).
    HostNotAllowed,
    /// The port (or the scheme's default when none is named) is not the server's.
    HostPort,
    /// `Sec-Fetch-Dest` says the request loads a frame (`iframe`, `frame`, `fencedframe`,
    /// `embed`, `object`).
    Framed,
    /// An `Origin` header that is not exactly the server's own origin as reached through the
    /// request's host (`null` included).
    Origin,
    /// `Sec-Fetch-Site` is present and neither `same-origin` nor `none`.
    FetchSite,
    /// An API request whose `Sec-Fetch-Mode` is present and neither `cors` nor `same-origin`.
    FetchMode,
    /// An API request whose `Sec-Fetch-Dest` is present and not `empty`.
    FetchDest,
    /// An API request without a well-formed `Authorization: Bearer` token, on a path that
    /// needs one.
    BearerMissing,
    /// A `Content-Length` other than `0` on a request that takes no body.
    UnexpectedBody,
    /// A `POST` whose `Content-Type` is not `application/json`, with at most a `charset`
    /// parameter of `utf-8`.
    ContentType,
    /// A `POST` without a `Content-Length` of decimal digits.
    ContentLength,
    /// A declared body longer than [`MAX_API_BODY_BYTES`].
    BodyTooLarge,
}

impl TrustRule {
    /// The rule's stable name, in kebab case.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TrustRule::Target => "target",
            TrustRule::Method => "method",
            TrustRule::RepeatedHeader => "repeated-header",
            TrustRule::HeaderNotText => "header-not-text",
            TrustRule::HostMissing => "host-missing",
            TrustRule::HostMalformed => "host-malformed",
            TrustRule::HostTrailingDot => "host-trailing-dot",
            TrustRule::HostNotAllowed => "host-not-allowed",
            TrustRule::HostPort => "host-port",
            TrustRule::Framed => "framed",
            TrustRule::Origin => "origin",
            TrustRule::FetchSite => "fetch-site",
            TrustRule::FetchMode => "fetch-mode",
            TrustRule::FetchDest => "fetch-dest",
            TrustRule::BearerMissing => "bearer-missing",
            TrustRule::UnexpectedBody => "unexpected-body",
            TrustRule::ContentType => "content-type",
            TrustRule::ContentLength => "content-length",
            TrustRule::BodyTooLarge => "body-too-large",
        }
    }
}

impl fmt::Display for TrustRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "request refused by rule `{}`", self.name())
    }
}

impl std::error::Error for TrustRule {}

/// The headers the decision reads (names compared without regard to ASCII case); every other
/// header is ignored.
const READ_HEADERS: [&str; 8] = [
    "host",
    "origin",
    "sec-fetch-site",
    "sec-fetch-mode",
    "sec-fetch-dest",
    "content-type",
    "content-length",
    "authorization",
];

/// Decides whether the approval server may serve a request, from its `method`, its `target`
/// (the path and query of the request line) and its `headers` (name and raw value, in any
/// order; the server's HTTP parser has already split them), under `trust`. Pure: nothing is
/// read but the arguments.
///
/// Accepted requests come back as a [`TrustedRequest`]; a refusal names the first
/// [`TrustRule`] that failed (spec/approval-server.md, "Request trust", states them).
///
/// ```
/// use seal_policy::approval::trust::{decide_trust, PanelScheme, RequestTrust, TrustRule};
///
/// let trust = RequestTrust::new(&["localhost"], 8917, PanelScheme::Http)?;
/// let page = [("Host", &b"localhost:8917"[..]), ("Sec-Fetch-Site", b"none")];
/// assert!(decide_trust(&trust, "GET", "/", &page).is_ok());
/// let rebound = [("Host", &b"evil.test:8917"[..]), ("Origin", b"http://evil.test:8917")];
/// assert_eq!(
///     decide_trust(&trust, "GET", "/", &rebound).err(),
///     Some(TrustRule::HostNotAllowed)
/// );
/// # Ok::<(), seal_policy::approval::trust::RequestTrustError>(())
/// ```
///
/// # Errors
/// The rule that refused the request.
pub fn decide_trust<'a>(
    trust: &RequestTrust,
    method: &str,
    target: &str,
    headers: &[(&str, &'a [u8])],
) -> Result<TrustedRequest<'a>, TrustRule> {
    let path = request_path(target).ok_or(TrustRule::Target)?;
    let route = if path == "/api" || path.starts_with("/api/") {
        TrustedRoute::Api
    } else {
        TrustedRoute::Page
    };
    let method_served = match route {
        TrustedRoute::Page => matches!(method, "GET" | "HEAD"),
        TrustedRoute::Api => matches!(method, "GET" | "POST" | "DELETE"),
    };
    if !method_served {
        return Err(TrustRule::Method);
    }
    let read = ReadHeaders::of(headers)?;

    let host = check_host(trust, read.host)?;

    let dest = read.fetch_dest;
    if dest.is_some_and(|dest| {
        ["iframe", "frame", "fencedframe", "embed", "object"]
            .iter()
            .any(|framed| dest.eq_ignore_ascii_case(framed))
    }) {
        return Err(TrustRule::Framed);
    }
    if read
        .origin
        .is_some_and(|origin| origin != trust.origin_of(&host))
    {
        return Err(TrustRule::Origin);
    }
    if read
        .fetch_site
        .is_some_and(|site| site != "same-origin" && site != "none")
    {
        return Err(TrustRule::FetchSite);
    }

    let mut bearer = None;
    if route == TrustedRoute::Api {
        if read
            .fetch_mode
            .is_some_and(|mode| mode != "cors" && mode != "same-origin")
        {
            return Err(TrustRule::FetchMode);
        }
        if dest.is_some_and(|dest| dest != "empty") {
            return Err(TrustRule::FetchDest);
        }
        bearer = read.authorization.and_then(bearer_token);
        if bearer.is_none() && !trust.is_open_api_path(path) {
            return Err(TrustRule::BearerMissing);
        }
    }

    let body_bytes = if method == "POST" {
        if !read.content_type.is_some_and(is_json_media_type) {
            return Err(TrustRule::ContentType);
        }
        let length = read
            .content_length
            .and_then(parse_length)
            .ok_or(TrustRule::ContentLength)?;
        if length > MAX_API_BODY_BYTES {
            return Err(TrustRule::BodyTooLarge);
        }
        length
    } else {
        if read.content_length.is_some_and(|length| length != "0") {
            return Err(TrustRule::UnexpectedBody);
        }
        0
    };
    Ok(TrustedRequest {
        route,
        bearer,
        body_bytes,
    })
}

/// The values of the headers the decision reads, each trimmed of surrounding spaces and tabs.
#[derive(Default)]
struct ReadHeaders<'a> {
    host: Option<&'a str>,
    origin: Option<&'a str>,
    fetch_site: Option<&'a str>,
    fetch_mode: Option<&'a str>,
    fetch_dest: Option<&'a str>,
    content_type: Option<&'a str>,
    content_length: Option<&'a str>,
    authorization: Option<&'a str>,
}

impl<'a> ReadHeaders<'a> {
    /// Reads `headers`, refusing a read header seen twice or holding a byte that is not text.
    fn of(headers: &[(&str, &'a [u8])]) -> Result<ReadHeaders<'a>, TrustRule> {
        let mut read = ReadHeaders::default();
        let mut seen = [false; READ_HEADERS.len()];
        for (name, value) in headers {
            let Some(index) = READ_HEADERS
                .iter()
                .position(|known| name.eq_ignore_ascii_case(known))
            else {
                continue;
            };
            let Some(slot) = seen.get_mut(index) else {
                continue;
            };
            if *slot {
                return Err(TrustRule::RepeatedHeader);
            }
            *slot = true;
            if !value.iter().all(|byte| matches!(byte, b' '..=b'~' | b'\t')) {
                return Err(TrustRule::HeaderNotText);
            }
            let text = std::str::from_utf8(value)
                .map_err(|_| TrustRule::HeaderNotText)?
                .trim_matches([' ', '\t']);
            let field = match index {
                0 => &mut read.host,
                1 => &mut read.origin,
                2 => &mut read.fetch_site,
                3 => &mut read.fetch_mode,
                4 => &mut read.fetch_dest,
                5 => &mut read.content_type,
                6 => &mut read.content_length,
                7 => &mut read.authorization,
                _ => continue,
            };
            *field = Some(text);
        }
        Ok(read)
    }
}

/// The path of an origin-form target (up to `?`), when the target is printable ASCII without
/// space or `#`, starts with `/`, and fits [`MAX_TARGET_BYTES`].
fn request_path(target: &str) -> Option<&str> {
    let valid = target.len() <= MAX_TARGET_BYTES
        && target.starts_with('/')
        && target
            .bytes()
            .all(|byte| byte.is_ascii_graphic() && byte != b'#');
    if !valid {
        return None;
    }
    Some(target.split_once('?').map_or(target, |(path, _)| path))
}

/// Checks the `Host` header against the allowlist and port; the lowercased host on success.
fn check_host(trust: &RequestTrust, host: Option<&str>) -> Result<String, TrustRule> {
    let value = host.ok_or(TrustRule::HostMissing)?;
    let (name, port) = split_host(value).ok_or(TrustRule::HostMalformed)?;
    if name.len() > MAX_HOST_BYTES {
        return Err(TrustRule::HostMalformed);
    }
    let name = name.to_ascii_lowercase();
    if name.ends_with('.') {
        return Err(TrustRule::HostTrailingDot);
    }
    if !(is_reg_name(&name) || is_ipv6_literal(&name)) {
        return Err(TrustRule::HostMalformed);
    }
    if !trust.trusts_host(&name) {
        return Err(TrustRule::HostNotAllowed);
    }
    if port.unwrap_or_else(|| trust.scheme().default_port()) != trust.port() {
        return Err(TrustRule::HostPort);
    }
    Ok(name)
}

/// Splits `host[:port]` (the host bracketed when it is an IPv6 literal); the port must be 1 to
/// 5 decimal digits without a leading zero, at most 65535.
fn split_host(value: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if value.starts_with('[') {
        let end = value.find(']')?;
        let (name, rest) = value.split_at_checked(end.checked_add(1)?)?;
        match rest {
            "" => (name, None),
            _ => (name, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match value.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (value, None),
        }
    };
    if name.is_empty() {
        return None;
    }
    let port = match port {
        None => None,
        Some(port) => {
            let canonical = (1..=5).contains(&port.len())
                && port.bytes().all(|byte| byte.is_ascii_digit())
                && !port.starts_with('0');
            if !canonical {
                return None;
            }
            Some(port.parse::<u16>().ok()?)
        }
    };
    Some((name, port))
}

/// The token of `Bearer <token>` (scheme in any case, one or more spaces, a token68 of at most
/// [`MAX_BEARER_BYTES`]).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let token = token.trim_start_matches(' ');
    let body = token.trim_end_matches('=');
    let valid = !body.is_empty()
        && token.len() <= MAX_BEARER_BYTES
        && body.bytes().all(|byte| {
            byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
        });
    valid.then_some(token)
}

/// `application/json`, optionally followed by one `charset` parameter of `utf-8` (quoted or
/// not); names and values without regard to ASCII case, spaces and tabs allowed around `;`
/// only.
fn is_json_media_type(value: &str) -> bool {
    let mut parts = value.split(';');
    let essence = parts.next().unwrap_or("").trim_matches([' ', '\t']);
    if !essence.eq_ignore_ascii_case("application/json") {
        return false;
    }
    match (parts.next(), parts.next()) {
        (None, _) => true,
        (Some(parameter), None) => parameter
            .trim_matches([' ', '\t'])
            .split_once('=')
            .is_some_and(|(name, charset)| {
                let charset = charset
                    .strip_prefix('"')
                    .and_then(|quoted| quoted.strip_suffix('"'))
                    .unwrap_or(charset);
                name.eq_ignore_ascii_case("charset") && charset.eq_ignore_ascii_case("utf-8")
            }),
        (Some(_), Some(_)) => false,
    }
}

/// A `Content-Length` of 1 to 20 decimal digits that fits a `u64`.
fn parse_length(value: &str) -> Option<u64> {
    let digits = (1..=20).contains(&value.len()) && value.bytes().all(|byte| byte.is_ascii_digit());
    if !digits {
        return None;
    }
    value.parse().ok()
}
