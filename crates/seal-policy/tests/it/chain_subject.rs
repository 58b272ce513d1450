//! The typed subject of a call: the URL domain reading against a model built from the URL's
//! parts (with a naive reader as the negative control), and no panic on hostile ids and URLs.

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError, TestRunner};
use seal_parse::json::Value;
use seal_policy::chain::url_host;
use seal_policy::chain::{url_domain, CallError, Subject, ToolCall};
use seal_record::SealedCall;

/// Control, format, bidi, tag, variation-selector, fullwidth and lookalike characters, and
/// percent-encoding: none may appear in a domain.
const HOSTILE: &[&str] = &[
    "%70",
    "%2e",
    "\t",
    "\n",
    "\r",
    " ",
    "\u{0}",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{200b}",
    "\u{200d}",
    "\u{202e}",
    "\u{2066}",
    "\u{fe0f}",
    "\u{feff}",
    "\u{e0041}",
    "\u{0435}",
    "\u{0131}",
    "\u{ff0e}",
    "\u{ff41}",
    "\u{3002}",
    "\u{fffd}",
    "\u{10ffff}",
    "_",
    "*",
    "!",
    "~",
];

#[derive(Debug, Clone)]
struct UrlParts {
    scheme: &'static str,
    userinfo: Option<&'static str>,
    host: String,
    /// `Some(true)`: numeric port; `Some(false)`: a port that is not a number.
    port: Option<bool>,
    tail: &'static str,
    /// Whether `host` is a plain DNS name (ASCII letters, digits, dots, hyphens).
    clean: bool,
}

impl UrlParts {
    fn url(&self) -> String {
        let mut url = format!("{}://", self.scheme);
        if let Some(userinfo) = self.userinfo {
            url.push_str(userinfo);
            url.push('@');
        }
        url.push_str(&self.host);
        match self.port {
            Some(true) => url.push_str(":8443"),
            Some(false) => url.push_str(":8o"),
            None => {}
        }
        url.push_str(self.tail);
        url
    }

    /// What the domain must be, from the parts.
    fn expected(&self) -> Option<String> {
        let web =
            self.scheme.eq_ignore_ascii_case("http") || self.scheme.eq_ignore_ascii_case("https");
        let host = self.host.strip_suffix('.').unwrap_or(&self.host);
        let plain = self.userinfo.is_none() && !self.tail.contains('\\');
        (web && plain && self.clean && self.port != Some(false)).then(|| host.to_ascii_lowercase())
    }
}

fn label() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9][a-zA-Z0-9-]{0,8}"
}

fn clean_host() -> impl Strategy<Value = String> {
    (proptest::collection::vec(label(), 1..4), any::<bool>()).prop_map(|(labels, dot)| {
        let mut host = labels.join(".");
        if dot {
            host.push('.');
        }
        host
    })
}

fn hostile_host() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            clean_host(),
            proptest::sample::select(HOSTILE),
            any::<prop::sample::Index>()
        )
            .prop_map(|(host, bad, at)| {
                let cut = at.index(host.len() + 1);
                let mut out = host[..cut].to_owned();
                out.push_str(bad);
                out.push_str(&host[cut..]);
                out
            }),
        Just(String::new()),
        Just("[::1]".to_owned()),
        Just("a..b".to_owned()),
        Just(".a".to_owned()),
    ]
}

fn url_parts() -> impl Strategy<Value = UrlParts> {
    let host = prop_oneof![
        2 => clean_host().prop_map(|host| (host, true)),
        1 => hostile_host().prop_map(|host| (host, false)),
    ];
    (
        proptest::sample::select(
            &[
                "http",
                "https",
                "HTTP",
                "HtTpS",
                "ftp",
                "file",
                "javascript",
            ][..],
        ),
        proptest::option::of(proptest::sample::select(
            &["user", "user:pw", "a@b", "evil.com"][..],
        )),
        host,
        proptest::option::of(any::<bool>()),
        proptest::sample::select(
            &["", "/", "/path?q", "\\@good.com/", "?q=@x", "#@y", "/a@b:1"][..],
        ),
    )
        .prop_map(|(scheme, userinfo, (host, clean), port, tail)| UrlParts {
            scheme,
            userinfo,
            host,
            port,
            tail,
            clean,
        })
}

fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(HOSTILE).prop_map(str::to_owned),
                proptest::sample::select(
                    &[
                        "http://", "https://", "@", ":", "/", "\\", "?", "#", ".", "a", "Z", "9",
                        "-", "[", "]"
                    ][..]
                )
                .prop_map(str::to_owned),
            ],
            0..24
        )
        .prop_map(|parts| parts.concat()),
        any::<String>(),
    ]
}

fn seeded(cases: u32) -> TestRunner {
    seal_test_support::seeded(cases)
}

fn domain_matches_parts(
    reader: fn(&str) -> Option<String>,
    parts: &UrlParts,
) -> Result<(), TestCaseError> {
    let url = parts.url();
    prop_assert_eq!(reader(&url), parts.expected(), "{:?}", url);
    Ok(())
}

/// The kind of reader the domain rule must not be: authority up to the first `/`, user
/// information cut at the last `@` (where browsers would cut at `\\` first), port cut at the
/// last `:`, anything else accepted.
fn naive_domain(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split('/').next()?;
    let host = authority.rsplit('@').next()?;
    let host = host.rsplit_once(':').map_or(host, |(host, _)| host);
    let host = host.strip_suffix('.').unwrap_or(host);
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[test]
fn the_domain_is_read_as_the_parts_say() {
    seeded(4096)
        .run(&url_parts(), |parts| {
            domain_matches_parts(url_domain, &parts)
        })
        .unwrap();
    seal_test_support::exploring(4096)
        .run(&url_parts(), |parts| {
            domain_matches_parts(url_domain, &parts)
        })
        .unwrap();
}

#[test]
fn the_domain_property_catches_a_naive_reader() {
    let result = seeded(4096).run(&url_parts(), |parts| {
        domain_matches_parts(naive_domain, &parts)
    });
    match result {
        Err(TestError::Fail(reason, parts)) => {
            eprintln!(
                "counterexample found as expected: {reason} for {:?}",
                parts.url()
            );
        }
        other => panic!("the naive reader passed: {other:?}"),
    }
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2048))]

    #[test]
    fn any_text_reads_as_a_plain_domain_or_none(text in hostile_text()) {
        if let Some(domain) = url_domain(&text) {
            prop_assert!(!domain.is_empty());
            prop_assert!(domain
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-'));
            prop_assert!(!domain.starts_with('.') && !domain.ends_with('.') && !domain.contains(".."));
        }
    }

    /// The chain's domain (shown in traces) and the rules' host (matched by `domain:` rules)
    /// are one reading.
    #[test]
    fn the_chain_and_the_rules_read_the_same_domain(
        text in prop_oneof![hostile_text(), url_parts().prop_map(|parts| parts.url())]
    ) {
        prop_assert_eq!(url_domain(&text), url_host(&text).ok(), "{:?}", text);
    }

    #[test]
    fn hostile_ids_are_refused_and_never_panic(session in hostile_text(), agent in hostile_text()) {
        let sealed = SealedCall::new("c", "WebFetch", &Value::from(session.as_str())).unwrap();
        let identifier = |id: &str| {
            !id.is_empty() && id.len() <= 256 && id.bytes().all(|b| (0x21..=0x7e).contains(&b))
        };
        match ToolCall::new(&session, Some(&agent), sealed) {
            Ok(call) => {
                prop_assert!(identifier(&session) && identifier(&agent));
                prop_assert_eq!(call.session(), session.as_str());
                // The arguments are a string, not an object: the url is unreadable.
                prop_assert_eq!(call.subject(), Subject::Unreadable { field: "url" });
            }
            Err(CallError::InvalidSessionId { value }) => {
                prop_assert!(!identifier(&session));
                prop_assert_eq!(value, session);
            }
            Err(CallError::InvalidAgentId { value }) => {
                prop_assert!(identifier(&session) && !identifier(&agent));
                prop_assert_eq!(value, agent);
            }
            Err(other) => prop_assert!(false, "unexpected error {other:?}"),
        }
    }
}
