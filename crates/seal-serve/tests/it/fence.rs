//! The HTTP fence: pairing, tokens, and one refused request per trust rule a browser attack
//! would hit (each with its accepted twin), and the security headers on every response.

use crate::support::{api, pair, raw, Answer, Place};

const SECURITY_HEADERS: [&str; 7] = [
    "content-security-policy",
    "x-frame-options",
    "x-content-type-options",
    "referrer-policy",
    "cross-origin-resource-policy",
    "cross-origin-opener-policy",
    "cache-control",
];

fn assert_secured(answer: &Answer) {
    for name in SECURITY_HEADERS {
        assert!(
            answer.header(name).is_some(),
            "{name} missing: {}",
            answer.head
        );
    }
    assert_eq!(
        answer.header("content-security-policy").as_deref(),
        Some(
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
             img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        )
    );
    assert!(answer.header("set-cookie").is_none());
}

fn assert_refused(answer: &Answer) {
    assert_eq!(answer.status, 403, "{answer:?}");
    assert!(answer.body.is_empty(), "{answer:?}");
    assert_secured(answer);
}

#[test]
fn pairing_gives_a_token_once_and_the_token_opens_the_api() {
    let place = Place::new();
    let server = place.start();
    let port = server.port();
    let secret_body = format!(
        "{{\"secret\":\"{}\"}}",
        server.pairing_url().split_once("#pair=").unwrap().1
    );
    let token = pair(&server);
    // Single use.
    let again = api(port, "POST", "/api/pair", None, Some(&secret_body));
    assert_eq!(again.status, 401);
    assert_secured(&again);
    let wrong = api(
        port,
        "POST",
        "/api/pair",
        None,
        Some("{\"secret\":\"AAAA\"}"),
    );
    assert_eq!(wrong.status, 401);

    let listed = api(port, "GET", "/api/tokens", Some(&token), None);
    assert_eq!(listed.status, 200, "{listed:?}");
    assert_secured(&listed);
    let tokens = listed.json();
    assert_eq!(tokens["tokens"].as_array().unwrap().len(), 1);
    let id = tokens["tokens"][0]["id"].as_str().unwrap().to_owned();
    assert!(
        !listed.body.contains(&token),
        "the token itself is never listed"
    );

    let bogus = api(port, "GET", "/api/tokens", Some("bm90LWEtdG9rZW4"), None);
    assert_eq!(bogus.status, 401);

    // A second pairing over the hook socket, then revoke the first token.
    let url =
        match seal_serve::client::request(server.socket(), &seal_serve::hookwire::HookLine::Pair) {
            Ok(seal_serve::hookwire::ServerLine::Pairing { url }) => url,
            other => panic!("{other:?}"),
        };
    assert!(url.starts_with(&format!("http://localhost:{port}/#pair=")));
    let second = crate::support::pair_with(port, &url);
    let revoked = api(
        port,
        "DELETE",
        &format!("/api/tokens/{id}"),
        Some(&second),
        None,
    );
    assert_eq!(revoked.status, 200, "{revoked:?}");
    assert_eq!(revoked.json()["revoked"], true);
    assert_eq!(
        api(port, "GET", "/api/tokens", Some(&token), None).status,
        401
    );
    let missing = api(
        port,
        "DELETE",
        &format!("/api/tokens/{id}"),
        Some(&second),
        None,
    );
    assert_eq!(missing.status, 404);
}

#[test]
fn the_page_is_served_with_its_headers_and_refused_when_framed() {
    let place = Place::new();
    let server = place.start();
    let port = server.port();
    let page = raw(
        port,
        &format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nSec-Fetch-Site: none\r\nSec-Fetch-Dest: document\r\nConnection: close\r\n\r\n"),
    );
    assert_eq!(page.status, 200);
    assert_secured(&page);
    assert!(page.body.contains("<html"));
    for path in ["/app.js", "/app.css"] {
        let file = raw(
            port,
            &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"),
        );
        assert_eq!(file.status, 200, "{path}");
        assert_secured(&file);
    }
    let framed = raw(
        port,
        &format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nSec-Fetch-Site: same-origin\r\nSec-Fetch-Dest: iframe\r\nConnection: close\r\n\r\n"),
    );
    assert_refused(&framed);
    let unknown = raw(
        port,
        &format!("GET /nothing HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n"),
    );
    assert_eq!(unknown.status, 404);
    assert_secured(&unknown);
}

#[test]
fn browser_attacks_are_refused_before_routing() {
    let place = Place::new();
    let server = place.start();
    let port = server.port();
    let token = pair(&server);
    let body = "{\"response\":{},\"assertion\":null}";
    let len = body.len();

    // Accepted twin: the panel's own request.
    let own = raw(
        port,
        &format!("GET /api/tokens HTTP/1.1\r\nHost: localhost:{port}\r\nAuthorization: Bearer {token}\r\nSec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: cors\r\nSec-Fetch-Dest: empty\r\nConnection: close\r\n\r\n"),
    );
    assert_eq!(own.status, 200, "{own:?}");

    let cases = [
        (
            "same-site page on another port",
            format!("GET /api/tokens HTTP/1.1\r\nHost: localhost:{port}\r\nAuthorization: Bearer {token}\r\nSec-Fetch-Site: same-site\r\nSec-Fetch-Mode: cors\r\nSec-Fetch-Dest: empty\r\nConnection: close\r\n\r\n"),
        ),
        (
            "rebinding host",
            format!("POST /api/respond HTTP/1.1\r\nHost: evil.test:{port}\r\nOrigin: http://evil.test:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n{body}"),
        ),
        (
            "origin null",
            format!("POST /api/respond HTTP/1.1\r\nHost: localhost:{port}\r\nOrigin: null\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n{body}"),
        ),
        (
            "missing bearer",
            format!("GET /api/tokens HTTP/1.1\r\nHost: localhost:{port}\r\nSec-Fetch-Site: same-origin\r\nConnection: close\r\n\r\n"),
        ),
        (
            "text/plain post",
            format!("POST /api/respond HTTP/1.1\r\nHost: localhost:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: text/plain\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n{body}"),
        ),
        (
            "preflight",
            format!("OPTIONS /api/respond HTTP/1.1\r\nHost: localhost:{port}\r\nOrigin: http://localhost:8080\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\n\r\n"),
        ),
        (
            "absolute-form target",
            format!("GET http://localhost:{port}/api/tokens HTTP/1.1\r\nHost: localhost:{port}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"),
        ),
        (
            "chunked post without a length",
            format!("POST /api/respond HTTP/1.1\r\nHost: localhost:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n"),
        ),
    ];
    for (name, request) in cases {
        let answer = raw(port, &request);
        assert_eq!(answer.status, 403, "{name}: {answer:?}");
        assert_refused(&answer);
    }
}

#[test]
fn a_second_server_and_a_public_address_are_refused() {
    let place = Place::new();
    let _server = place.start();
    match seal_serve::start(place.config()) {
        Err(seal_serve::ServeError::AlreadyRunning { .. }) => {}
        other => panic!("{other:?}"),
    }
    let other = Place::new();
    let mut config = other.config();
    config.listen = "0.0.0.0:0".parse().unwrap();
    match seal_serve::start(config) {
        Err(error @ seal_serve::ServeError::NotLoopback { .. }) => {
            assert!(
                error
                    .to_string()
                    .contains("beyond loopback the panel needs TLS"),
                "{error}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_socket_store_and_their_folders_are_the_owners_only() {
    use std::os::unix::fs::PermissionsExt;
    let place = Place::new();
    let _server = place.start();
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&place.socket()), 0o600);
    assert_eq!(mode(&place.store()), 0o600);
    assert_eq!(mode(place.socket().parent().unwrap()), 0o700);
    assert_eq!(mode(place.store().parent().unwrap()), 0o700);

    // A folder others may write is refused.
    let open = Place::new();
    let folder = open.socket().parent().unwrap().to_owned();
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o777)).unwrap();
    match seal_serve::start(open.config()) {
        Err(seal_serve::ServeError::UnsafePath { .. }) => {}
        other => panic!("{other:?}"),
    }
}
