//! The approval server's request-trust decision over header sets as Chromium and Firefox send
//! them (each refusal names its rule, the honest requests pass), a property that no request
//! whose `Host` is outside the allowlist is ever accepted (with a negative control that skips
//! the Host check), and the rule for the command line an approval card shows, with its twins.

use proptest::prelude::*;
use seal_policy::approval::trust::{
    card_command, card_command_of, decide_trust, PanelScheme, RequestTrust, RequestTrustError,
    TrustRule, TrustedRoute, MAX_API_BODY_BYTES,
};
use seal_policy::chain::{Arguments, ToolCall};

const PORT: u16 = 8917;
const TOKEN: &str = "Bearer q3Vx0mB7tYl2Hc9WsE4kRn8aJ1uPzD6fG5iLoK0xN-_";

fn trust() -> RequestTrust {
    RequestTrust::new(
        &["127.0.0.1", "localhost", "[::1]"],
        PORT,
        PanelScheme::Http,
    )
    .expect("valid allowlist")
    .with_open_api_path("/api/session")
    .expect("valid open path")
}

/// One recorded request: what it is, the request line, the headers, and the expected answer.
struct Recorded {
    what: &'static str,
    method: &'static str,
    target: &'static str,
    headers: Vec<(&'static str, &'static str)>,
    expected: Result<TrustedRoute, TrustRule>,
}

const CHROMIUM_UA: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const FIREFOX_UA: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// A Chromium top-level navigation to `host` as typed in the address bar.
fn chromium_navigation(host: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("Host", host),
        ("Connection", "keep-alive"),
        ("sec-ch-ua", "\"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\""),
        ("sec-ch-ua-mobile", "?0"),
        ("sec-ch-ua-platform", "\"Linux\""),
        ("Upgrade-Insecure-Requests", "1"),
        ("User-Agent", CHROMIUM_UA),
        ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"),
        ("Sec-Fetch-Site", "none"),
        ("Sec-Fetch-Mode", "navigate"),
        ("Sec-Fetch-User", "?1"),
        ("Sec-Fetch-Dest", "document"),
        ("Accept-Encoding", "gzip, deflate, br, zstd"),
        ("Accept-Language", "en-US,en;q=0.9"),
    ]
}

/// The panel's own `fetch` from `http://localhost:8917`, with `extra` headers.
fn panel_fetch(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut headers = vec![
        ("Host", "localhost:8917"),
        ("Connection", "keep-alive"),
        ("sec-ch-ua-platform", "\"Linux\""),
        ("User-Agent", CHROMIUM_UA),
        ("Accept", "*/*"),
        (
            "sec-ch-ua",
            "\"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\"",
        ),
        ("sec-ch-ua-mobile", "?0"),
        ("Sec-Fetch-Site", "same-origin"),
        ("Sec-Fetch-Mode", "cors"),
        ("Sec-Fetch-Dest", "empty"),
        ("Referer", "http://localhost:8917/"),
        ("Accept-Encoding", "gzip, deflate, br, zstd"),
        ("Accept-Language", "en-US,en;q=0.9"),
    ];
    headers.extend_from_slice(extra);
    headers
}

/// The panel's response `POST`, from `origin` with `fetch_site`, carrying a JSON body.
fn respond_post(
    origin: &'static str,
    fetch_site: &'static str,
) -> Vec<(&'static str, &'static str)> {
    vec![
        ("Host", "localhost:8917"),
        ("Connection", "keep-alive"),
        ("Content-Length", "161"),
        ("User-Agent", CHROMIUM_UA),
        ("Content-Type", "application/json"),
        ("Authorization", TOKEN),
        ("Accept", "*/*"),
        ("Origin", origin),
        ("Sec-Fetch-Site", fetch_site),
        ("Sec-Fetch-Mode", "cors"),
        ("Sec-Fetch-Dest", "empty"),
        ("Accept-Encoding", "gzip, deflate, br, zstd"),
    ]
}

fn with_host(
    mut headers: Vec<(&'static str, &'static str)>,
    host: &'static str,
) -> Vec<(&'static str, &'static str)> {
    for header in &mut headers {
        if header.0 == "Host" {
            header.1 = host;
        }
    }
    headers
}

fn without(
    mut headers: Vec<(&'static str, &'static str)>,
    name: &str,
) -> Vec<(&'static str, &'static str)> {
    headers.retain(|header| !header.0.eq_ignore_ascii_case(name));
    headers
}

fn recorded() -> Vec<Recorded> {
    use TrustRule::*;
    use TrustedRoute::{Api, Page};
    let r = |what, method, target, headers, expected| Recorded {
        what,
        method,
        target,
        headers,
        expected,
    };
    vec![
        // The honest requests.
        r(
            "chromium: top-level navigation to the panel",
            "GET",
            "/",
            chromium_navigation("localhost:8917"),
            Ok(Page),
        ),
        r(
            "chromium: navigation through 127.0.0.1",
            "GET",
            "/",
            chromium_navigation("127.0.0.1:8917"),
            Ok(Page),
        ),
        r(
            "chromium: navigation through [::1]",
            "GET",
            "/",
            chromium_navigation("[::1]:8917"),
            Ok(Page),
        ),
        r(
            "firefox: top-level navigation to the panel",
            "GET",
            "/",
            vec![
                ("Host", "localhost:8917"),
                ("User-Agent", FIREFOX_UA),
                (
                    "Accept",
                    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                ),
                ("Accept-Language", "en-US,en;q=0.5"),
                ("Accept-Encoding", "gzip, deflate, br, zstd"),
                ("Connection", "keep-alive"),
                ("Upgrade-Insecure-Requests", "1"),
                ("Sec-Fetch-Dest", "document"),
                ("Sec-Fetch-Mode", "navigate"),
                ("Sec-Fetch-Site", "none"),
                ("Sec-Fetch-User", "?1"),
                ("Priority", "u=0, i"),
            ],
            Ok(Page),
        ),
        r(
            "chromium: the page's own script",
            "GET",
            "/app.js",
            vec![
                ("Host", "localhost:8917"),
                ("User-Agent", CHROMIUM_UA),
                ("Accept", "*/*"),
                ("Sec-Fetch-Site", "same-origin"),
                ("Sec-Fetch-Mode", "no-cors"),
                ("Sec-Fetch-Dest", "script"),
                ("Referer", "http://localhost:8917/"),
            ],
            Ok(Page),
        ),
        r(
            "chromium: the panel's event stream read with fetch",
            "GET",
            "/api/events",
            panel_fetch(&[("Accept", "text/event-stream"), ("Authorization", TOKEN)])
                .into_iter()
                .filter(|header| *header != ("Accept", "*/*"))
                .collect(),
            Ok(Api),
        ),
        r(
            "chromium: the panel's response",
            "POST",
            "/api/respond",
            respond_post("http://localhost:8917", "same-origin"),
            Ok(Api),
        ),
        r(
            "firefox: the panel's response with a charset",
            "POST",
            "/api/respond",
            vec![
                ("Host", "127.0.0.1:8917"),
                ("User-Agent", FIREFOX_UA),
                ("Accept", "*/*"),
                ("Accept-Language", "en-US,en;q=0.5"),
                ("Accept-Encoding", "gzip, deflate, br, zstd"),
                ("Referer", "http://127.0.0.1:8917/"),
                ("Content-Type", "application/json; charset=utf-8"),
                ("Authorization", TOKEN),
                ("Content-Length", "161"),
                ("Origin", "http://127.0.0.1:8917"),
                ("Connection", "keep-alive"),
                ("Sec-Fetch-Dest", "empty"),
                ("Sec-Fetch-Mode", "cors"),
                ("Sec-Fetch-Site", "same-origin"),
                ("Priority", "u=4"),
            ],
            Ok(Api),
        ),
        r(
            "chromium: the pairing exchange, before any token",
            "POST",
            "/api/session",
            without(
                respond_post("http://localhost:8917", "same-origin"),
                "Authorization",
            ),
            Ok(Api),
        ),
        r(
            "curl: no browser headers, a bearer token",
            "GET",
            "/api/events",
            vec![
                ("Host", "127.0.0.1:8917"),
                ("User-Agent", "curl/8.11.1"),
                ("Accept", "*/*"),
                ("Authorization", TOKEN),
            ],
            Ok(Api),
        ),
        r(
            "a host in upper case is normalized",
            "GET",
            "/",
            chromium_navigation("LocalHost:8917"),
            Ok(Page),
        ),
        // Cross-site.
        r(
            "chromium: cross-site JSON fetch sends its preflight",
            "OPTIONS",
            "/api/respond",
            vec![
                ("Host", "localhost:8917"),
                ("Accept", "*/*"),
                ("Access-Control-Request-Method", "POST"),
                (
                    "Access-Control-Request-Headers",
                    "authorization,content-type",
                ),
                ("Origin", "https://evil.example"),
                ("User-Agent", CHROMIUM_UA),
                ("Sec-Fetch-Mode", "cors"),
                ("Sec-Fetch-Site", "cross-site"),
                ("Sec-Fetch-Dest", "empty"),
            ],
            Err(Method),
        ),
        r(
            "chromium: cross-site fetch POST",
            "POST",
            "/api/respond",
            respond_post("https://evil.example", "cross-site"),
            Err(Origin),
        ),
        r(
            "chromium: cross-site image of the API (no Origin)",
            "GET",
            "/api/events",
            vec![
                ("Host", "localhost:8917"),
                ("User-Agent", CHROMIUM_UA),
                (
                    "Accept",
                    "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
                ),
                ("Sec-Fetch-Site", "cross-site"),
                ("Sec-Fetch-Mode", "no-cors"),
                ("Sec-Fetch-Dest", "image"),
                ("Referer", "https://evil.example/"),
            ],
            Err(FetchSite),
        ),
        r(
            "chromium: cross-site link to the panel",
            "GET",
            "/",
            chromium_navigation("localhost:8917")
                .into_iter()
                .map(|header| {
                    if header.0 == "Sec-Fetch-Site" {
                        ("Sec-Fetch-Site", "cross-site")
                    } else {
                        header
                    }
                })
                .collect(),
            Err(FetchSite),
        ),
        // Same-site: another port on 127.0.0.1.
        r(
            "chromium: fetch POST from 127.0.0.1:3000",
            "POST",
            "/api/respond",
            with_host(
                respond_post("http://127.0.0.1:3000", "same-site"),
                "127.0.0.1:8917",
            ),
            Err(Origin),
        ),
        r(
            "chromium: fetch GET from 127.0.0.1:3000 with the Origin stripped by no-cors",
            "GET",
            "/api/events",
            vec![
                ("Host", "127.0.0.1:8917"),
                ("User-Agent", CHROMIUM_UA),
                ("Sec-Fetch-Site", "same-site"),
                ("Sec-Fetch-Mode", "no-cors"),
                ("Sec-Fetch-Dest", "empty"),
                ("Authorization", TOKEN),
            ],
            Err(FetchSite),
        ),
        // DNS rebinding: the Origin matches the attacker's Host.
        r(
            "chromium: rebinding with a matching Origin",
            "POST",
            "/api/respond",
            with_host(
                respond_post("http://evil.test:8917", "same-origin"),
                "evil.test:8917",
            ),
            Err(HostNotAllowed),
        ),
        r(
            "chromium: rebinding, plain-HTTP name, no Fetch Metadata",
            "GET",
            "/api/events",
            vec![
                ("Host", "evil.test:8917"),
                ("User-Agent", CHROMIUM_UA),
                ("Accept", "*/*"),
                ("Authorization", TOKEN),
            ],
            Err(HostNotAllowed),
        ),
        r(
            "a subdomain of a trusted name",
            "GET",
            "/",
            chromium_navigation("a.localhost:8917"),
            Err(HostNotAllowed),
        ),
        // Framing.
        r(
            "chromium: the panel loaded in a cross-site iframe",
            "GET",
            "/",
            vec![
                ("Host", "localhost:8917"),
                ("Upgrade-Insecure-Requests", "1"),
                ("User-Agent", CHROMIUM_UA),
                (
                    "Accept",
                    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                ),
                ("Sec-Fetch-Site", "cross-site"),
                ("Sec-Fetch-Mode", "navigate"),
                ("Sec-Fetch-Dest", "iframe"),
                ("Referer", "http://127.0.0.1:3000/"),
            ],
            Err(Framed),
        ),
        r(
            "firefox: the panel in a same-origin frame",
            "GET",
            "/",
            vec![
                ("Host", "localhost:8917"),
                ("User-Agent", FIREFOX_UA),
                ("Sec-Fetch-Dest", "iframe"),
                ("Sec-Fetch-Mode", "navigate"),
                ("Sec-Fetch-Site", "same-origin"),
            ],
            Err(Framed),
        ),
        r(
            "chromium: the panel as an object",
            "GET",
            "/",
            vec![
                ("Host", "localhost:8917"),
                ("Sec-Fetch-Site", "cross-site"),
                ("Sec-Fetch-Mode", "navigate"),
                ("Sec-Fetch-Dest", "object"),
            ],
            Err(Framed),
        ),
        // Origin: null (a sandboxed frame, a file: page).
        r(
            "chromium: fetch POST from a sandboxed frame",
            "POST",
            "/api/respond",
            respond_post("null", "cross-site"),
            Err(Origin),
        ),
        r(
            "a client sending Origin: null without Fetch Metadata",
            "POST",
            "/api/respond",
            without(respond_post("null", "x"), "Sec-Fetch-Site"),
            Err(Origin),
        ),
        r(
            "an Origin of the right host on the wrong port",
            "POST",
            "/api/respond",
            respond_post("http://localhost:8918", "same-origin"),
            Err(Origin),
        ),
        r(
            "an Origin of another trusted name",
            "POST",
            "/api/respond",
            respond_post("http://127.0.0.1:8917", "same-origin"),
            Err(Origin),
        ),
        // Trailing dots.
        r(
            "trailing dot on localhost",
            "GET",
            "/",
            chromium_navigation("localhost.:8917"),
            Err(HostTrailingDot),
        ),
        r(
            "trailing dot on 127.0.0.1",
            "GET",
            "/",
            chromium_navigation("127.0.0.1.:8917"),
            Err(HostTrailingDot),
        ),
        r(
            "trailing dot without a port",
            "GET",
            "/",
            chromium_navigation("localhost."),
            Err(HostTrailingDot),
        ),
        // IPv6 forms.
        r(
            "IPv6 loopback written in full",
            "GET",
            "/",
            chromium_navigation("[0:0:0:0:0:0:0:1]:8917"),
            Err(HostNotAllowed),
        ),
        r(
            "IPv4-mapped IPv6 loopback",
            "GET",
            "/",
            chromium_navigation("[::ffff:127.0.0.1]:8917"),
            Err(HostNotAllowed),
        ),
        r(
            "IPv6 loopback without brackets",
            "GET",
            "/",
            chromium_navigation("::1:8917"),
            Err(HostMalformed),
        ),
        r(
            "IPv6 loopback with a zone",
            "GET",
            "/",
            chromium_navigation("[::1%25lo]:8917"),
            Err(HostMalformed),
        ),
        r(
            "IPv6 loopback without a port",
            "GET",
            "/",
            chromium_navigation("[::1]"),
            Err(HostPort),
        ),
        // Ports.
        r(
            "another port",
            "GET",
            "/",
            chromium_navigation("localhost:8918"),
            Err(HostPort),
        ),
        r(
            "no port (the default, 80)",
            "GET",
            "/",
            chromium_navigation("localhost"),
            Err(HostPort),
        ),
        r(
            "a port with a leading zero",
            "GET",
            "/",
            chromium_navigation("localhost:08917"),
            Err(HostMalformed),
        ),
        r(
            "an empty port",
            "GET",
            "/",
            chromium_navigation("localhost:"),
            Err(HostMalformed),
        ),
        r(
            "a port beyond 65535",
            "GET",
            "/",
            chromium_navigation("localhost:89170"),
            Err(HostMalformed),
        ),
        r(
            "127.0.0.2 is not trusted",
            "GET",
            "/",
            chromium_navigation("127.0.0.2:8917"),
            Err(HostNotAllowed),
        ),
        // Forms and bodies.
        r(
            "chromium: cross-site form POST with text/plain",
            "POST",
            "/api/respond",
            vec![
                ("Host", "localhost:8917"),
                ("Content-Length", "58"),
                ("Cache-Control", "max-age=0"),
                ("Origin", "https://evil.example"),
                ("Content-Type", "text/plain"),
                ("Upgrade-Insecure-Requests", "1"),
                ("User-Agent", CHROMIUM_UA),
                ("Sec-Fetch-Site", "cross-site"),
                ("Sec-Fetch-Mode", "navigate"),
                ("Sec-Fetch-User", "?1"),
                ("Sec-Fetch-Dest", "document"),
            ],
            Err(Origin),
        ),
        r(
            "firefox: same-origin form POST with text/plain",
            "POST",
            "/api/respond",
            vec![
                ("Host", "localhost:8917"),
                ("User-Agent", FIREFOX_UA),
                ("Content-Type", "text/plain"),
                ("Content-Length", "58"),
                ("Origin", "http://localhost:8917"),
                ("Sec-Fetch-Dest", "document"),
                ("Sec-Fetch-Mode", "navigate"),
                ("Sec-Fetch-Site", "same-origin"),
                ("Sec-Fetch-User", "?1"),
            ],
            Err(FetchMode),
        ),
        r(
            "chromium: same-origin fetch with a string body (text/plain)",
            "POST",
            "/api/respond",
            respond_post("http://localhost:8917", "same-origin")
                .into_iter()
                .map(|header| {
                    if header.0 == "Content-Type" {
                        ("Content-Type", "text/plain;charset=UTF-8")
                    } else {
                        header
                    }
                })
                .collect(),
            Err(ContentType),
        ),
        r(
            "a JSON body in another charset",
            "POST",
            "/api/respond",
            respond_post("http://localhost:8917", "same-origin")
                .into_iter()
                .map(|header| {
                    if header.0 == "Content-Type" {
                        ("Content-Type", "application/json; charset=latin1")
                    } else {
                        header
                    }
                })
                .collect(),
            Err(ContentType),
        ),
        r(
            "a body over the limit",
            "POST",
            "/api/respond",
            respond_post("http://localhost:8917", "same-origin")
                .into_iter()
                .map(|header| {
                    if header.0 == "Content-Length" {
                        ("Content-Length", "65537")
                    } else {
                        header
                    }
                })
                .collect(),
            Err(BodyTooLarge),
        ),
        r(
            "a chunked POST without a length",
            "POST",
            "/api/respond",
            without(
                respond_post("http://localhost:8917", "same-origin"),
                "Content-Length",
            ),
            Err(ContentLength),
        ),
        r(
            "a GET with a body",
            "GET",
            "/api/events",
            panel_fetch(&[("Authorization", TOKEN), ("Content-Length", "5")]),
            Err(UnexpectedBody),
        ),
        // Tokens, modes and the rest.
        r(
            "the panel's fetch without a token",
            "GET",
            "/api/events",
            panel_fetch(&[]),
            Err(BearerMissing),
        ),
        r(
            "a token of another scheme",
            "GET",
            "/api/events",
            panel_fetch(&[("Authorization", "Basic dXNlcjpwYXNz")]),
            Err(BearerMissing),
        ),
        r(
            "chromium: a WebSocket upgrade from the panel (no headers can be set)",
            "GET",
            "/api/events",
            vec![
                ("Host", "localhost:8917"),
                ("Connection", "Upgrade"),
                ("Upgrade", "websocket"),
                ("Origin", "http://localhost:8917"),
                ("Sec-WebSocket-Version", "13"),
                ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ],
            Err(BearerMissing),
        ),
        r(
            "a typed URL of the API",
            "GET",
            "/api/events",
            chromium_navigation("localhost:8917"),
            Err(FetchMode),
        ),
        r(
            "the API as a script",
            "GET",
            "/api/events",
            vec![
                ("Host", "localhost:8917"),
                ("Sec-Fetch-Site", "same-origin"),
                ("Sec-Fetch-Mode", "cors"),
                ("Sec-Fetch-Dest", "script"),
                ("Authorization", TOKEN),
            ],
            Err(FetchDest),
        ),
        r(
            "a page POST",
            "POST",
            "/",
            chromium_navigation("localhost:8917"),
            Err(Method),
        ),
        r(
            "an absolute-form target",
            "GET",
            "http://localhost:8917/",
            chromium_navigation("localhost:8917"),
            Err(Target),
        ),
        r(
            "no Host",
            "GET",
            "/",
            without(chromium_navigation("localhost:8917"), "Host"),
            Err(HostMissing),
        ),
        r(
            "two Host headers",
            "GET",
            "/",
            {
                let mut headers = chromium_navigation("localhost:8917");
                headers.push(("host", "evil.test:8917"));
                headers
            },
            Err(RepeatedHeader),
        ),
        r(
            "a Host with a user",
            "GET",
            "/",
            chromium_navigation("user@localhost:8917"),
            Err(HostMalformed),
        ),
        r(
            "a Host with a path",
            "GET",
            "/",
            chromium_navigation("localhost:8917/x"),
            Err(HostMalformed),
        ),
    ]
}

fn decide(trust: &RequestTrust, request: &Recorded) -> Result<TrustedRoute, TrustRule> {
    let headers: Vec<(&str, &[u8])> = request
        .headers
        .iter()
        .map(|(name, value)| (*name, value.as_bytes()))
        .collect();
    decide_trust(trust, request.method, request.target, &headers).map(|trusted| trusted.route())
}

#[test]
fn recorded_browser_requests_get_the_expected_answer() {
    let trust = trust();
    let mut wrong = Vec::new();
    for request in recorded() {
        let got = decide(&trust, &request);
        if got != request.expected {
            wrong.push(format!(
                "{}: expected {:?}, got {:?}",
                request.what, request.expected, got
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_rule_is_named_by_some_recorded_request() {
    let named: Vec<TrustRule> = recorded()
        .iter()
        .filter_map(|request| request.expected.err())
        .collect();
    for rule in [
        TrustRule::Target,
        TrustRule::Method,
        TrustRule::RepeatedHeader,
        TrustRule::HostMissing,
        TrustRule::HostMalformed,
        TrustRule::HostTrailingDot,
        TrustRule::HostNotAllowed,
        TrustRule::HostPort,
        TrustRule::Framed,
        TrustRule::Origin,
        TrustRule::FetchSite,
        TrustRule::FetchMode,
        TrustRule::FetchDest,
        TrustRule::BearerMissing,
        TrustRule::UnexpectedBody,
        TrustRule::ContentType,
        TrustRule::ContentLength,
        TrustRule::BodyTooLarge,
    ] {
        assert!(
            named.contains(&rule),
            "no recorded request for {}",
            rule.name()
        );
    }
}

#[test]
fn an_accepted_request_carries_its_token_and_body_length() {
    let trust = trust();
    let headers = respond_post("http://localhost:8917", "same-origin");
    let headers: Vec<(&str, &[u8])> = headers
        .iter()
        .map(|(name, value)| (*name, value.as_bytes()))
        .collect();
    let trusted = decide_trust(&trust, "POST", "/api/respond", &headers).expect("honest");
    assert_eq!(trusted.route(), TrustedRoute::Api);
    assert_eq!(
        Some(trusted.bearer().expect("token")),
        TOKEN.strip_prefix("Bearer ")
    );
    assert_eq!(trusted.body_bytes(), 161);
    assert!(
        !format!("{trusted:?}").contains("q3Vx0"),
        "the token is redacted"
    );
    assert!(trusted.body_bytes() <= MAX_API_BODY_BYTES);
}

#[test]
fn header_values_that_are_not_text_are_refused() {
    let trust = trust();
    let headers: [(&str, &[u8]); 2] = [
        ("Host", b"localhost:8917"),
        ("Origin", b"http://localhost:8917\xff"),
    ];
    assert_eq!(
        decide_trust(&trust, "GET", "/", &headers).map(|t| t.route()),
        Err(TrustRule::HeaderNotText)
    );
}

#[test]
fn the_allowlist_is_checked_when_built() {
    let port = PanelScheme::Http;
    assert_eq!(
        RequestTrust::new(&[], PORT, port),
        Err(RequestTrustError::NoHosts)
    );
    for bad in [
        "localhost.",
        "LocalHost",
        "[::1",
        "::1",
        "[::1]:80",
        "",
        "a..b",
        "[::G]",
    ] {
        assert!(
            matches!(
                RequestTrust::new(&[bad], PORT, port),
                Err(RequestTrustError::InvalidHost { .. })
            ),
            "{bad:?}"
        );
    }
    assert_eq!(
        RequestTrust::new(&["localhost"], 0, port),
        Err(RequestTrustError::InvalidPort)
    );
    let trust = RequestTrust::new(&["localhost"], 80, port).expect("valid");
    assert_eq!(trust.origin_of("localhost"), "http://localhost");
    for bad in ["/session", "/api/", "/api/a b", "api/session"] {
        assert!(trust.clone().with_open_api_path(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_host_without_port_means_the_default_port() {
    let trust = RequestTrust::new(&["localhost"], 80, PanelScheme::Http).expect("valid");
    let headers: [(&str, &[u8]); 2] = [("Host", b"localhost"), ("Sec-Fetch-Site", b"none")];
    assert!(decide_trust(&trust, "GET", "/", &headers).is_ok());
    let headers: [(&str, &[u8]); 1] = [("Host", b"localhost:80")];
    assert!(decide_trust(&trust, "GET", "/", &headers).is_ok());
    let headers: [(&str, &[u8]); 1] = [("Host", b"localhost:443")];
    assert_eq!(
        decide_trust(&trust, "GET", "/", &headers).map(|t| t.route()),
        Err(TrustRule::HostPort)
    );
}

// The property: no request whose Host is outside the allowlist is ever accepted.

/// A request with an arbitrary `Host` and otherwise honest panel headers.
#[derive(Debug, Clone)]
struct HostProbe {
    host: String,
    origin: bool,
    post: bool,
}

fn host_text() -> impl Strategy<Value = String> {
    let trusted =
        prop::sample::select(vec!["127.0.0.1", "localhost", "[::1]", "LOCALHOST", "[::1"]);
    let port = prop::sample::select(vec![
        "",
        ":8917",
        ":8918",
        ":08917",
        ":80",
        ":",
        ":8917:8917",
    ]);
    let mutation = prop::sample::select(vec!["", ".", "x", "-", "..", "%2e", " ", "\t", "@", "/"]);
    prop_oneof![
        (trusted, port.clone(), mutation.clone(), any::<bool>()).prop_map(
            |(host, port, mutation, before)| {
                if before {
                    format!("{mutation}{host}{port}")
                } else {
                    format!("{host}{mutation}{port}")
                }
            }
        ),
        ("[a-zA-Z0-9.:\\[\\]%@ -]{0,24}", port).prop_map(|(host, port)| format!("{host}{port}")),
    ]
}

fn host_probe() -> impl Strategy<Value = HostProbe> {
    (host_text(), any::<bool>(), any::<bool>()).prop_map(|(host, origin, post)| HostProbe {
        host,
        origin,
        post,
    })
}

type Decide = fn(&RequestTrust, &str, &str, &[(&str, &[u8])]) -> bool;

fn real(trust: &RequestTrust, method: &str, target: &str, headers: &[(&str, &[u8])]) -> bool {
    decide_trust(trust, method, target, headers).is_ok()
}

/// Negative control: the decision with the Host check skipped (the request's Host is replaced
/// by a trusted one before deciding).
fn host_check_skipped(
    trust: &RequestTrust,
    method: &str,
    target: &str,
    headers: &[(&str, &[u8])],
) -> bool {
    let replaced: Vec<(&str, &[u8])> = headers
        .iter()
        .map(|(name, value)| {
            if name.eq_ignore_ascii_case("host") {
                (*name, &b"localhost:8917"[..])
            } else {
                (*name, *value)
            }
        })
        .collect();
    decide_trust(trust, method, target, &replaced).is_ok()
}

fn never_accepts_an_untrusted_host(decide: Decide, probe: &HostProbe) -> Result<(), TestCaseError> {
    let trust = trust();
    let origin = format!("http://{}", probe.host);
    let mut headers: Vec<(&str, &[u8])> = vec![
        ("Host", probe.host.as_bytes()),
        ("Sec-Fetch-Site", b"same-origin"),
        ("Sec-Fetch-Mode", b"cors"),
        ("Sec-Fetch-Dest", b"empty"),
        ("Authorization", TOKEN.as_bytes()),
    ];
    if probe.origin {
        headers.push(("Origin", origin.as_bytes()));
    }
    let (method, target) = if probe.post {
        headers.push(("Content-Type", b"application/json"));
        headers.push(("Content-Length", b"20"));
        ("POST", "/api/respond")
    } else {
        ("GET", "/api/events")
    };
    let trusted = ["127.0.0.1:8917", "localhost:8917", "[::1]:8917"];
    if decide(&trust, method, target, &headers) {
        let host = probe.host.trim_matches([' ', '\t']).to_ascii_lowercase();
        prop_assert!(
            trusted.contains(&host.as_str()),
            "accepted Host {:?}",
            probe.host
        );
    }
    Ok(())
}

fn host_counterexample(decide: Decide) -> Option<HostProbe> {
    seal_test_support::counterexample(seal_test_support::seeded(2048).run(&host_probe(), |probe| {
        never_accepts_an_untrusted_host(decide, &probe)
    }))
}

#[test]
fn no_request_with_an_untrusted_host_is_accepted() {
    assert!(host_counterexample(real).is_none());
}

#[test]
fn the_property_catches_a_decision_that_skips_the_host_check() {
    seal_test_support::assert_finds_counterexample(
        seal_test_support::seeded(2048).run(&host_probe(), |probe| {
            never_accepts_an_untrusted_host(host_check_skipped, &probe)
        }),
        "host check skipped",
    );
}

#[test]
fn the_honest_panel_fetch_is_accepted_through_every_trusted_host() {
    // The property would hold vacuously if the honest headers were refused anyway.
    for host in ["127.0.0.1:8917", "localhost:8917", "[::1]:8917"] {
        let probe = HostProbe {
            host: host.to_owned(),
            origin: true,
            post: true,
        };
        let trust = trust();
        let origin = format!("http://{host}");
        let headers: Vec<(&str, &[u8])> = vec![
            ("Host", host.as_bytes()),
            ("Sec-Fetch-Site", b"same-origin"),
            ("Sec-Fetch-Mode", b"cors"),
            ("Sec-Fetch-Dest", b"empty"),
            ("Authorization", TOKEN.as_bytes()),
            ("Origin", origin.as_bytes()),
            ("Content-Type", b"application/json"),
            ("Content-Length", b"20"),
        ];
        assert!(real(&trust, "POST", "/api/respond", &headers), "{probe:?}");
    }
}

// Which command line a card shows.

#[test]
fn the_command_is_shown_only_for_a_root_shell_call_with_a_string_command() {
    let cases: &[(&str, &[u8], Option<&str>)] = &[
        (
            "Bash",
            br#"{"command":"cargo test --workspace"}"#,
            Some("cargo test --workspace"),
        ),
        (
            "Bash",
            br#"{"command":"ls","description":"list","timeout":1000}"#,
            Some("ls"),
        ),
        ("Bash", br#"{"command":"","description":"empty"}"#, Some("")),
        (
            "Bash",
            br#"{"command":"echo \"a\"\nrm -rf \u001b[2J"}"#,
            Some("echo \"a\"\nrm -rf \u{1b}[2J"),
        ),
        (
            "Bash",
            br#"{"command":"printf \ud83d\ude00"}"#,
            Some("printf \u{1f600}"),
        ),
        // Twins that show nothing.
        ("Bash", br#"{"command":"ls""#, None),
        ("Bash", b"not json", None),
        ("Bash", b"", None),
        ("Bash", br#"{"command":"ls"} trailing"#, None),
        ("Bash", br#"{"command":"ls","command":"rm -rf /"}"#, None),
        ("Bash", br#"{"input":{"command":"ls"}}"#, None),
        ("Bash", br#"[{"command":"ls"}]"#, None),
        ("Bash", br#""ls""#, None),
        ("Bash", br#"{"command":"ls \ud800"}"#, None),
        ("Bash", br#"{"command":"\udc00"}"#, None),
        ("Bash", br#"{"command":["ls","-l"]}"#, None),
        ("Bash", br#"{"command":42}"#, None),
        ("Bash", br#"{"command":null}"#, None),
        ("Bash", br#"{"Command":"ls"}"#, None),
        ("Bash", br#"{}"#, None),
        ("bash", br#"{"command":"ls"}"#, None),
        (
            "Read",
            br#"{"command":"ls","file_path":"/etc/passwd"}"#,
            None,
        ),
        (
            "WebFetch",
            br#"{"command":"ls","url":"https://example.com"}"#,
            None,
        ),
        ("mcp__shell__run", br#"{"command":"ls"}"#, None),
    ];
    for (tool, arguments, expected) in cases {
        assert_eq!(
            card_command(tool, arguments).as_deref(),
            *expected,
            "{tool} {}",
            String::from_utf8_lossy(arguments)
        );
    }
}

#[test]
fn a_frozen_call_shows_the_same_command() {
    let cases: &[(&str, &[u8])] = &[
        (
            "Bash",
            br#"{"command":"git status","description":"status"}"#,
        ),
        ("Bash", br#"{"input":{"command":"ls"}}"#),
        ("Bash", br#"{"command":"\ud800"}"#),
        ("Bash", br#"{"command":7}"#),
        ("Read", br#"{"command":"ls"}"#),
    ];
    for (tool, arguments) in cases {
        let call = ToolCall::freeze(
            "session-1",
            None,
            "call-1",
            tool,
            arguments,
            Arguments::Lossless,
        )
        .expect("freezes");
        assert_eq!(
            card_command_of(&call),
            card_command(tool, arguments).as_deref(),
            "{tool} {}",
            String::from_utf8_lossy(arguments)
        );
        assert_eq!(
            card_command(tool, call.arguments_json().as_bytes()),
            card_command(tool, arguments),
            "the canonical form shows the same"
        );
    }
}
