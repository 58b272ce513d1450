//! The approvers file behind the panel: enrolment with the start-up secret (once) or an
//! enrolled approver's assertion, and allows that count only with an enrolled approver's
//! assertion over the entry's own challenge. A software authenticator (Ed25519, attestation
//! `none`) plays the security key.

use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::signature::{Ed25519KeyPair, KeyPair};
use seal_record::Outcome;
use seal_serve::approvers::Approvers;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::support::{api, ask, hook, pair, response, Panel, Place};

const WAIT: Duration = Duration::from_secs(30);

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn unb64(text: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(text).expect("base64url")
}

/// A security key: one Ed25519 credential, a signature counter, user verification on or off.
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

    fn auth_data(&mut self, flags: u8, attested: bool) -> Vec<u8> {
        self.count += 1;
        let mut data = Sha256::digest(b"localhost").to_vec();
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

    /// `navigator.credentials.create()` for the options the server gave.
    fn register(&mut self, port: u16, options: &Value) -> (String, String) {
        let client_data = json!({"type": "webauthn.create", "challenge": options["challenge"], "origin": format!("http://localhost:{port}")}).to_string();
        let auth_data = self.auth_data(0x45, true);
        let attestation = ciborium::Value::Map(vec![
            ("fmt".into(), "none".into()),
            ("attStmt".into(), ciborium::Value::Map(vec![])),
            ("authData".into(), ciborium::Value::Bytes(auth_data)),
        ]);
        let mut bytes = Vec::new();
        ciborium::into_writer(&attestation, &mut bytes).expect("cbor");
        (b64(client_data.as_bytes()), b64(&bytes))
    }

    /// `navigator.credentials.get()` over `challenge` (base64url), user verified or not.
    fn assert(&mut self, port: u16, challenge: &str, verified: bool) -> Value {
        let client_data = json!({"type": "webauthn.get", "challenge": challenge, "origin": format!("http://localhost:{port}")}).to_string();
        let auth_data = self.auth_data(if verified { 0x05 } else { 0x01 }, false);
        let mut signed = auth_data.clone();
        signed.extend_from_slice(&Sha256::digest(client_data.as_bytes()));
        json!({
            "credential_id": b64(&self.id),
            "client_data_json": b64(client_data.as_bytes()),
            "authenticator_data": b64(&auth_data),
            "signature": b64(self.pair.sign(&signed).as_ref()),
        })
    }
}

struct Served {
    _place: Place,
    server: seal_serve::RunningServer,
    approvers_file: std::path::PathBuf,
    token: String,
    secret: String,
}

fn serve() -> Served {
    let place = Place::new();
    let approvers_file = place.socket().with_file_name("approvers.json");
    let approvers = Approvers::new(approvers_file.clone()).expect("approvers");
    let mut config = place.config();
    config.allow_check = Arc::new(approvers);
    let server = seal_serve::start(config).expect("start");
    let secret = server
        .pairing_url()
        .split_once("&enrol=")
        .map(|(_, secret)| secret.to_owned())
        .expect("the start address carries the enrolment secret");
    let token = pair(&server);
    Served {
        _place: place,
        server,
        approvers_file,
        token,
        secret,
    }
}

fn post(served: &Served, path: &str, body: &Value) -> Value {
    let answer = api(
        served.server.port(),
        "POST",
        path,
        Some(&served.token),
        Some(&body.to_string()),
    );
    assert_eq!(answer.status, 200, "{answer:?}");
    answer.json()
}

fn enrol(served: &Served, key: &mut Key, secret: Option<&str>, voucher: Option<&mut Key>) -> Value {
    let options = post(served, "/api/approvers/enrol", &json!({}));
    let port = served.server.port();
    let assertion = voucher.map(|voucher| {
        voucher.assert(
            port,
            options["challenge"].as_str().expect("challenge"),
            true,
        )
    });
    let (client_data_json, attestation_object) = key.register(port, &options);
    post(
        served,
        "/api/approvers/enrol/finish",
        &json!({"name": "test key", "client_data_json": client_data_json,
                "attestation_object": attestation_object, "secret": secret,
                "assertion": assertion}),
    )
}

#[test]
fn the_start_up_secret_enrols_one_key_once_and_an_approver_vouches_for_more() {
    let served = serve();
    let mut first = Key::new(1);
    // Neither the secret nor an approver: refused, nothing written.
    assert_eq!(
        enrol(&served, &mut first, None, None)["refused"],
        "unauthenticated"
    );
    assert!(!served.approvers_file.exists());
    assert_eq!(
        enrol(&served, &mut first, Some("not-the-secret"), None)["refused"],
        "unauthenticated"
    );
    let enrolled = enrol(&served, &mut first, Some(&served.secret), None);
    assert_eq!(enrolled["approver"], b64(&first.id), "{enrolled}");
    let file: Value = serde_json::from_slice(&std::fs::read(&served.approvers_file).expect("file"))
        .expect("json");
    assert_eq!(file["approvers"].as_array().expect("list").len(), 1);
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&served.approvers_file)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the approvers file is the owner's only");
    }
    // The secret is spent.
    let mut second = Key::new(2);
    assert_eq!(
        enrol(&served, &mut second, Some(&served.secret), None)["refused"],
        "unauthenticated"
    );
    // An unverified voucher does not count; the enrolled approver does.
    let mut stranger = Key::new(9);
    assert_eq!(
        enrol(&served, &mut second, None, Some(&mut stranger))["refused"],
        "unauthenticated"
    );
    let vouched = enrol(&served, &mut second, None, Some(&mut first));
    assert_eq!(vouched["approver"], b64(&second.id), "{vouched}");
    let listed = api(
        served.server.port(),
        "GET",
        "/api/approvers",
        Some(&served.token),
        None,
    )
    .json();
    assert_eq!(listed["approvers"].as_array().expect("list").len(), 2);
}

#[test]
fn an_allow_counts_only_with_an_approvers_assertion_over_its_own_entry() {
    let served = serve();
    let port = served.server.port();
    let mut key = Key::new(3);
    assert!(enrol(&served, &mut key, Some(&served.secret), None)["approver"].is_string());
    let mut panel = Panel::connect(port, &served.token);
    let hello = panel.next(WAIT).expect("hello");
    assert_eq!(hello["approvers"], 1);
    assert!(hello["warning"].is_null());

    let (first, first_registered) = hook(served.server.socket(), ask("session-w", 1, WAIT), WAIT);
    let (second, _) = hook(served.server.socket(), ask("session-w", 2, WAIT), WAIT);
    let first_rpc = first_registered.recv_timeout(WAIT).expect("registered");
    let frames: Vec<Value> = (0..2)
        .map(|_| panel.until("approval/requested", |_| true))
        .collect();
    let frame_of = |rpc: u64| {
        frames
            .iter()
            .find(|frame| frame["rpc_id"] == rpc)
            .cloned()
            .expect("frame")
    };
    let mine = frame_of(first_rpc);
    let other = frames
        .iter()
        .find(|frame| frame["rpc_id"] != first_rpc)
        .cloned()
        .expect("other");
    let allow = |assertion: Value| {
        let mut body: Value = serde_json::from_str(&response(
            first_rpc,
            "session-w",
            "approval-1",
            "allowed-once",
        ))
        .expect("body");
        body["assertion"] = assertion;
        post(&served, "/api/respond", &body)
    };
    let unauthenticated = json!({"accepted": false, "reason": "unauthenticated"});
    assert_eq!(allow(Value::Null), unauthenticated);
    let other_challenge = other["challenge"].as_str().expect("challenge");
    assert_eq!(
        allow(key.assert(port, other_challenge, true)),
        unauthenticated
    );
    let challenge = mine["challenge"].as_str().expect("challenge");
    assert_eq!(allow(key.assert(port, challenge, false)), unauthenticated);
    let mut stranger = Key::new(7);
    assert_eq!(
        allow(stranger.assert(port, challenge, true)),
        unauthenticated
    );
    // A refusal needs no key.
    let refused = post(
        &served,
        "/api/respond",
        &serde_json::from_str::<Value>(&response(
            other["rpc_id"].as_u64().expect("rpc"),
            "session-w",
            "approval-2",
            "rejected",
        ))
        .expect("body"),
    );
    assert_eq!(refused["accepted"], true);
    assert_eq!(
        allow(key.assert(port, challenge, true)),
        json!({"accepted": true})
    );
    let settled = first.join().expect("join").expect("settled");
    assert_eq!(settled.outcome, Outcome::AllowedOnce);
    let carried = settled.assertion.expect("the assertion reaches the hook");
    assert_eq!(unb64(&carried.credential_id), key.id);
    let refused = second.join().expect("join").expect("settled");
    assert_eq!(refused.outcome, Outcome::Rejected);
}
