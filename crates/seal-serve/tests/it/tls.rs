//! The panel over TLS: a self-signed certificate for `approve.test` (made here with rcgen), a
//! rustls client that trusts it and sends SNI `approve.test`; the pairing exchange, the event
//! stream and WebAuthn over HTTPS, the Host allowlist, plain HTTP to the TLS port, and the start
//! rules beyond loopback (each refused before anything is bound).

use std::io::{BufReader, Read as _, Write as _};
use std::net::{IpAddr, SocketAddr, TcpStream, UdpSocket};
use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::signature::{Ed25519KeyPair, KeyPair};
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use seal_record::Outcome;
use seal_serve::approvers::Approvers;
use seal_serve::hookwire::WireAssertion;
use seal_serve::{start, AllowCheck, RunningServer, ServeConfig, ServeError, TlsFiles};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::support::{ask, fail, hook, read_body, read_chunk, read_head, response, Answer, Place};

const HOST: &str = "approve.test";
const WAIT: Duration = Duration::from_secs(30);

type Tls = StreamOwned<ClientConnection, TcpStream>;

/// A self-signed certificate for [`HOST`], written as PEM files in the place's folder.
struct Certificate {
    der: CertificateDer<'static>,
    files: TlsFiles,
}

fn certificate(place: &Place) -> Certificate {
    let made = rcgen::generate_simple_self_signed(vec![HOST.to_owned()]).expect("certificate");
    let folder = place.dir.path().join("tls");
    std::fs::create_dir_all(&folder).expect("folder");
    let cert_chain = folder.join("panel.crt");
    let private_key = folder.join("panel.key");
    std::fs::write(&cert_chain, made.cert.pem()).expect("write the certificate");
    std::fs::write(&private_key, made.key_pair.serialize_pem()).expect("write the key");
    Certificate {
        der: made.cert.der().clone(),
        files: TlsFiles {
            cert_chain,
            private_key,
        },
    }
}

/// A TLS configuration for `approve.test` on `listen` (no approvers: `NoApprovers`).
fn tls_config(place: &Place, cert: &Certificate, listen: &str) -> ServeConfig {
    let mut config = place.config();
    config.listen = listen.parse().expect("address");
    config.tls = Some(cert.files.clone());
    config.trusted_hosts = vec![HOST.to_owned()];
    config
}

/// A rustls client that trusts only `cert`.
fn client(cert: &Certificate) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots.add(cert.der.clone()).expect("root");
    #[allow(deprecated)]
    let provider = rustls::crypto::ring::default_provider();
    Arc::new(
        ClientConfig::builder_with_provider(Arc::new(provider))
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(roots)
            .with_no_client_auth(),
    )
}

/// A TLS connection to `ip:port` with SNI [`HOST`].
fn connect(cert: &Certificate, ip: IpAddr, port: u16) -> Tls {
    let tcp = TcpStream::connect((ip, port)).expect("connect");
    tcp.set_read_timeout(Some(WAIT)).expect("timeout");
    let name = ServerName::try_from(HOST).expect("name");
    let connection = ClientConnection::new(client(cert), name).expect("client");
    StreamOwned::new(connection, tcp)
}

/// Sends `request` over TLS and reads the answer.
fn send(cert: &Certificate, ip: IpAddr, port: u16, request: &str) -> Answer {
    let mut tls = connect(cert, ip, port);
    tls.write_all(request.as_bytes()).expect("write");
    let mut reader = BufReader::new(tls);
    let (status, head) = read_head(&mut reader);
    let body = read_body(&mut reader, &head);
    Answer { status, head, body }
}

/// An API request as the panel sends it over TLS, with `host` in `Host`.
fn api(
    cert: &Certificate,
    (ip, port): (IpAddr, u16),
    host: &str,
    (method, path): (&str, &str),
    token: Option<&str>,
    body: Option<&str>,
) -> Answer {
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(body) = body {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("Connection: close\r\n\r\n");
    if let Some(body) = body {
        request.push_str(body);
    }
    send(cert, ip, port, &request)
}

fn loopback() -> IpAddr {
    IpAddr::from([127, 0, 0, 1])
}

/// The secret of `#pair=P` in a pairing address.
fn pairing_secret(url: &str) -> &str {
    let rest = url
        .split_once("#pair=")
        .map_or_else(|| fail(url), |(_, rest)| rest);
    rest.split('&').next().unwrap_or(rest)
}

/// Pairs over TLS through `Host: approve.test:PORT` with the page's own `Origin`.
fn pair(cert: &Certificate, at: (IpAddr, u16), url: &str) -> String {
    let port = at.1;
    let body = json!({ "secret": pairing_secret(url) }).to_string();
    let request = format!(
        "POST /api/pair HTTP/1.1\r\nHost: {HOST}:{port}\r\nOrigin: https://{HOST}:{port}\r\n\
         Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: cors\r\nSec-Fetch-Dest: empty\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let answer = send(cert, at.0, port, &request);
    assert_eq!(answer.status, 200, "{answer:?}");
    answer.json()["token"].as_str().expect("token").to_owned()
}

/// A panel's event stream over TLS.
struct Events {
    reader: BufReader<Tls>,
    pending: Vec<u8>,
}

impl Events {
    fn connect(cert: &Certificate, port: u16, token: &str) -> Events {
        let mut tls = connect(cert, loopback(), port);
        let request = format!(
            "GET /api/events HTTP/1.1\r\nHost: {HOST}:{port}\r\nAuthorization: Bearer {token}\r\n\
             Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: cors\r\nSec-Fetch-Dest: empty\r\n\r\n"
        );
        tls.write_all(request.as_bytes()).expect("write");
        let mut reader = BufReader::new(tls);
        let (status, head) = read_head(&mut reader);
        assert_eq!(status, 200, "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: text/event-stream"),
            "{head}"
        );
        assert!(
            head.to_ascii_lowercase()
                .contains("content-security-policy:"),
            "{head}"
        );
        Events {
            reader,
            pending: Vec::new(),
        }
    }

    /// The next `data:` frame (the socket's read timeout bounds the wait).
    fn next(&mut self) -> Value {
        loop {
            if let Some(at) = self.pending.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = self.pending.drain(..at + 2).collect();
                let text = String::from_utf8(event).expect("utf-8");
                if let Some(data) = text.lines().find_map(|line| line.strip_prefix("data: ")) {
                    return serde_json::from_str(data).expect("json");
                }
                continue;
            }
            let chunk = read_chunk(&mut self.reader).unwrap_or_else(|| fail("the stream ended"));
            self.pending.extend_from_slice(&chunk);
        }
    }

    fn until(&mut self, kind: &str) -> Value {
        loop {
            let frame = self.next();
            if frame["type"] == kind {
                return frame;
            }
        }
    }
}

/// An allow check that counts one approver and accepts no assertion.
struct OneApprover;

impl AllowCheck for OneApprover {
    fn approvers(&self) -> u64 {
        1
    }

    fn check(&self, _: &[u8; 32], _: Option<&WireAssertion>) -> Result<(), String> {
        Err("no assertion verifies in this test".to_owned())
    }
}

fn tls_server(place: &Place, cert: &Certificate) -> RunningServer {
    start(tls_config(place, cert, "127.0.0.1:0")).expect("start")
}

#[test]
fn tls_pairing_and_the_event_stream_work_over_https() {
    let place = Place::new();
    let cert = certificate(&place);
    let server = tls_server(&place, &cert);
    let port = server.port();
    let url = server.pairing_url();
    assert!(
        url.starts_with(&format!("https://{HOST}:{port}/#pair=")),
        "{url}"
    );
    let token = pair(&cert, (loopback(), port), url);
    let mut events = Events::connect(&cert, port, &token);
    let hello = events.next();
    assert_eq!(hello["type"], "hello", "{hello}");
    // The page itself, with its security headers.
    let page = api(
        &cert,
        (loopback(), port),
        &format!("{HOST}:{port}"),
        ("GET", "/"),
        None,
        None,
    );
    assert_eq!(page.status, 200, "{page:?}");
    assert_eq!(page.header("x-frame-options").as_deref(), Some("DENY"));
}

#[test]
fn tls_hosts_outside_the_allowlist_and_the_http_origin_are_refused() {
    let place = Place::new();
    let cert = certificate(&place);
    let server = tls_server(&place, &cert);
    let port = server.port();
    let at = (loopback(), port);
    let events = ("GET", "/api/events");
    for host in [
        format!("evil.test:{port}"),
        format!("{HOST}:1"),
        HOST.to_owned(),
    ] {
        let answer = api(&cert, at, &host, events, Some("x"), None);
        assert_eq!(answer.status, 403, "{host}: {answer:?}");
    }
    // The page's origin is https: the same host with an http origin is a stranger.
    let body = json!({ "secret": pairing_secret(server.pairing_url()) }).to_string();
    let request = format!(
        "POST /api/pair HTTP/1.1\r\nHost: {HOST}:{port}\r\nOrigin: http://{HOST}:{port}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    assert_eq!(send(&cert, loopback(), port, &request).status, 403);
    // On loopback the loopback names are trusted after approve.test (over https only).
    let answer = api(
        &cert,
        at,
        &format!("localhost:{port}"),
        events,
        Some("not-a-token"),
        None,
    );
    assert_eq!(answer.status, 401, "{answer:?}");
}

#[test]
fn tls_plain_http_to_the_tls_port_gets_no_http_answer() {
    let place = Place::new();
    let cert = certificate(&place);
    let server = tls_server(&place, &cert);
    let port = server.port();
    let mut tcp = TcpStream::connect((loopback(), port)).expect("connect");
    tcp.set_read_timeout(Some(WAIT)).expect("timeout");
    let token = pair(&cert, (loopback(), port), server.pairing_url());
    let request = format!(
        "GET /api/tokens HTTP/1.1\r\nHost: {HOST}:{port}\r\nAuthorization: Bearer {token}\r\n\
         Connection: close\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).expect("write");
    let mut answer = Vec::new();
    // A reset connection ends the read with an error; what was read before it counts.
    let _ = tcp.read_to_end(&mut answer);
    assert!(
        !answer.starts_with(b"HTTP/"),
        "{:?}",
        String::from_utf8_lossy(&answer)
    );
    // Nothing or a TLS alert record (content type 21).
    assert!(answer.is_empty() || answer[0] == 21, "{answer:?}");
}

#[test]
fn tls_start_refuses_beyond_loopback_without_tls_an_approver_or_a_trusted_host() {
    let place = Place::new();
    let cert = certificate(&place);
    let anywhere = "0.0.0.0:0";

    let mut plain = place.config();
    plain.listen = anywhere.parse().expect("address");
    plain.allow_check = Arc::new(OneApprover);
    let refused = start(plain).expect_err("plain HTTP beyond loopback");
    assert!(
        matches!(refused, ServeError::NotLoopback { .. }),
        "{refused}"
    );
    assert!(refused.to_string().contains("--tls-cert"), "{refused}");

    let mut unapproved = tls_config(&place, &cert, anywhere);
    let approvers = place.dir.path().join("approvers.json");
    unapproved.allow_check = Arc::new(Approvers::new(approvers).expect("approvers"));
    let refused = start(unapproved).expect_err("no approver");
    assert!(
        matches!(refused, ServeError::NoApprover { .. }),
        "{refused}"
    );

    let mut nameless = tls_config(&place, &cert, anywhere);
    nameless.allow_check = Arc::new(OneApprover);
    nameless.trusted_hosts.clear();
    let refused = start(nameless).expect_err("no trusted host");
    assert!(
        matches!(refused, ServeError::NoTrustedHost { .. }),
        "{refused}"
    );

    let mut untrusted = place.config();
    untrusted.trusted_hosts = vec![HOST.to_owned()];
    let refused = start(untrusted).expect_err("a trusted host without TLS");
    assert!(
        matches!(refused, ServeError::TrustedHostWithoutTls { .. }),
        "{refused}"
    );

    let mut numeric = tls_config(&place, &cert, "127.0.0.1:0");
    numeric.trusted_hosts = vec!["192.0.2.7".to_owned()];
    let refused = start(numeric).expect_err("an address as trusted host");
    assert!(
        matches!(refused, ServeError::TrustedHostIsAddress { .. }),
        "{refused}"
    );

    let mut keyless = tls_config(&place, &cert, "127.0.0.1:0");
    keyless.tls = Some(TlsFiles {
        cert_chain: cert.files.cert_chain.clone(),
        private_key: place.dir.path().join("missing.key"),
    });
    let refused = start(keyless).expect_err("no key");
    assert!(matches!(refused, ServeError::Tls(_)), "{refused}");

    // Every refusal came before the hook socket's folder was made: nothing was bound.
    assert!(!place.socket().exists());
    assert!(!place.socket().parent().expect("folder").exists());
}

/// This machine's address toward the outside (no packet is sent), if it has one.
fn outward_address() -> Option<IpAddr> {
    let probe = UdpSocket::bind("0.0.0.0:0").ok()?;
    probe.connect("192.0.2.1:9").ok()?;
    let ip = probe.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[test]
fn tls_beyond_loopback_answers_to_the_trusted_host_only() {
    let Some(ip) = outward_address() else {
        eprintln!("skipped: this machine has no non-loopback address");
        return;
    };
    let place = Place::new();
    let cert = certificate(&place);
    let mut config = tls_config(&place, &cert, &SocketAddr::new(ip, 0).to_string());
    config.allow_check = Arc::new(OneApprover);
    let server = start(config).expect("start beyond loopback");
    let port = server.port();
    let at = (ip, port);
    let token = pair(&cert, at, server.pairing_url());
    let tokens = ("GET", "/api/tokens");
    let host = format!("{HOST}:{port}");
    assert_eq!(
        api(&cert, at, &host, tokens, Some(&token), None).status,
        200
    );
    for other in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("{ip}:{port}"),
    ] {
        let answer = api(&cert, at, &other, tokens, Some(&token), None);
        assert_eq!(answer.status, 403, "{other}: {answer:?}");
    }
}

/// A security key: one Ed25519 credential and a signature counter.
struct Key {
    pair: Ed25519KeyPair,
    id: Vec<u8>,
    count: u32,
}

impl Key {
    fn new(seed: u8) -> Key {
        Key {
            pair: Ed25519KeyPair::from_seed_unchecked(&[seed; 32]).expect("key"),
            id: vec![seed; 16],
            count: 0,
        }
    }

    fn auth_data(&mut self, rp_id: &str, flags: u8, attested: bool) -> Vec<u8> {
        self.count += 1;
        let mut data = Sha256::digest(rp_id.as_bytes()).to_vec();
        data.push(flags);
        data.extend_from_slice(&self.count.to_be_bytes());
        if attested {
            data.extend_from_slice(&[0; 16]);
            data.extend_from_slice(&u16::try_from(self.id.len()).expect("len").to_be_bytes());
            data.extend_from_slice(&self.id);
            let cose = ciborium::Value::Map(vec![
                (1.into(), 1.into()),
                (3.into(), (-8).into()),
                ((-1).into(), 6.into()),
                (
                    (-2).into(),
                    ciborium::Value::Bytes(self.pair.public_key().as_ref().to_vec()),
                ),
            ]);
            ciborium::into_writer(&cose, &mut data).expect("cbor");
        }
        data
    }

    /// `navigator.credentials.create()` on a page of `origin` for `rp_id`.
    fn register(&mut self, origin: &str, rp_id: &str, challenge: &Value) -> (String, String) {
        let client_data =
            json!({"type": "webauthn.create", "challenge": challenge, "origin": origin})
                .to_string();
        let attestation = ciborium::Value::Map(vec![
            ("fmt".into(), "none".into()),
            ("attStmt".into(), ciborium::Value::Map(vec![])),
            (
                "authData".into(),
                ciborium::Value::Bytes(self.auth_data(rp_id, 0x45, true)),
            ),
        ]);
        let mut bytes = Vec::new();
        ciborium::into_writer(&attestation, &mut bytes).expect("cbor");
        (
            URL_SAFE_NO_PAD.encode(client_data.as_bytes()),
            URL_SAFE_NO_PAD.encode(&bytes),
        )
    }

    /// `navigator.credentials.get()` on a page of `origin` for `rp_id`, user verified.
    fn assert(&mut self, origin: &str, rp_id: &str, challenge: &Value) -> Value {
        let client_data =
            json!({"type": "webauthn.get", "challenge": challenge, "origin": origin}).to_string();
        let auth_data = self.auth_data(rp_id, 0x05, false);
        let mut signed = auth_data.clone();
        signed.extend_from_slice(&Sha256::digest(client_data.as_bytes()));
        json!({
            "credential_id": URL_SAFE_NO_PAD.encode(&self.id),
            "client_data_json": URL_SAFE_NO_PAD.encode(client_data.as_bytes()),
            "authenticator_data": URL_SAFE_NO_PAD.encode(&auth_data),
            "signature": URL_SAFE_NO_PAD.encode(self.pair.sign(&signed).as_ref()),
        })
    }
}

#[test]
fn tls_webauthn_is_bound_to_the_https_origin_and_the_trusted_host() {
    let place = Place::new();
    let cert = certificate(&place);
    let mut config = tls_config(&place, &cert, "127.0.0.1:0");
    let approvers = place.dir.path().join("approvers.json");
    config.allow_check = Arc::new(Approvers::new(approvers).expect("approvers"));
    let server = start(config).expect("start");
    let port = server.port();
    let at = (loopback(), port);
    let host = format!("{HOST}:{port}");
    let origin = format!("https://{HOST}:{port}");
    let http_origin = format!("http://localhost:{port}");
    let url = server.pairing_url().to_owned();
    let secret = url.split_once("&enrol=").expect("enrolment secret").1;
    let token = pair(&cert, at, &url);
    let post = |path: &str, body: &Value| {
        let answer = api(
            &cert,
            at,
            &host,
            ("POST", path),
            Some(&token),
            Some(&body.to_string()),
        );
        assert_eq!(answer.status, 200, "{answer:?}");
        answer.json()
    };

    // Enrolment: the options name approve.test; a registration made for the loopback http
    // origin is refused, the https one is taken.
    let mut key = Key::new(5);
    let options = post("/api/approvers/enrol", &json!({}));
    assert_eq!(options["rp_id"], HOST, "{options}");
    let finish = |(client_data_json, attestation_object): (String, String)| {
        json!({"name": "tls key", "client_data_json": client_data_json,
               "attestation_object": attestation_object, "secret": secret})
    };
    let wrong = finish(key.register(&http_origin, "localhost", &options["challenge"]));
    assert_eq!(
        post("/api/approvers/enrol/finish", &wrong)["refused"],
        "registration"
    );
    let right = finish(key.register(&origin, HOST, &options["challenge"]));
    let enrolled = post("/api/approvers/enrol/finish", &right);
    assert_eq!(
        enrolled["approver"],
        URL_SAFE_NO_PAD.encode(&key.id),
        "{enrolled}"
    );

    // An allow: assertions made for the http origin, or for the https origin of another
    // relying party, do not count; the one made on the https panel does.
    let mut events = Events::connect(&cert, port, &token);
    let (waiting, registered) = hook(server.socket(), ask("session-t", 1, WAIT), WAIT);
    let rpc_id = registered.recv_timeout(WAIT).expect("registered");
    let frame = events.until("approval/requested");
    assert_eq!(frame["rpc_id"], rpc_id, "{frame}");
    let challenge = &frame["challenge"];
    let allow = |assertion: Value| {
        let mut body: Value =
            serde_json::from_str(&response(rpc_id, "session-t", "approval-1", "allowed-once"))
                .expect("body");
        body["assertion"] = assertion;
        post("/api/respond", &body)
    };
    let unauthenticated = json!({"accepted": false, "reason": "unauthenticated"});
    let for_http = key.assert(&http_origin, "localhost", challenge);
    assert_eq!(allow(for_http), unauthenticated);
    let for_http_host = key.assert(&http_origin, HOST, challenge);
    assert_eq!(allow(for_http_host), unauthenticated);
    let for_localhost = key.assert(&format!("https://localhost:{port}"), "localhost", challenge);
    assert_eq!(allow(for_localhost), unauthenticated);
    let for_other_party = key.assert(&origin, "localhost", challenge);
    assert_eq!(allow(for_other_party), unauthenticated);
    assert_eq!(
        allow(key.assert(&origin, HOST, challenge)),
        json!({"accepted": true})
    );
    let settled = waiting.join().expect("join").expect("settled");
    assert_eq!(settled.outcome, Outcome::AllowedOnce);
}
