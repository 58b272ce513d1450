//! The enrolled approvers (spec/webauthn-approval.md; spec/approval-server.md, "Approvers"):
//! the [`AllowCheck`] that asks an approver's assertion for every allow, and the enrolment of
//! new approvers from the panel.
//!
//! The approvers file is the one the waiting hooks read, and it is read again at every check,
//! so an approver revoked by editing the file stops counting at once. The server writes it
//! only to enrol, atomically and owner-only.
//!
//! Enrolment needs one of two things: the **enrolment secret** `seal serve` prints once to its
//! own terminal at start (in the pairing address, `#pair=P&enrol=E`; single use, never handed
//! out over the hook socket, so a process that can only reach the socket cannot enrol itself),
//! or, once any approver is enrolled, an assertion of an enrolled approver over the enrolment's
//! challenge.

use std::collections::VecDeque;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use seal_parse::json::{parse, Fields, JsonLimits, Value};
use seal_verify::webauthn::{
    enrol_challenge, parse_registration, verify_assertion, ApproverRegistry, Assertion, Expected,
    RegisteredApprover,
};
use sha2::{Digest, Sha256};

use crate::check::AllowCheck;
use crate::hookwire::WireAssertion;
use crate::state::{now_ms, random32};

/// How long an enrolment started on the panel may take to finish.
pub const ENROL_WINDOW_MS: u64 = 5 * 60 * 1000;

/// Most enrolments started and not finished at once; one more forgets the oldest.
pub const MAX_OPEN_ENROLMENTS: usize = 8;

/// The approvers file, checked at every allow, and the enrolments in progress.
pub struct Approvers {
    path: PathBuf,
    /// The panel's origin and relying party id, set when the listener is bound (its port may
    /// be chosen then).
    binding: OnceLock<Binding>,
    secret_text: String,
    inner: Mutex<Inner>,
}

/// What an assertion must name: the panel's origin (`clientDataJSON.origin`) and relying party
/// id (hashed in the authenticator data).
struct Binding {
    origin: String,
    rp_id: String,
}

struct Inner {
    /// Enrolment nonces with their expiry.
    open: VecDeque<([u8; 32], u64)>,
    /// SHA-256 of the start-up enrolment secret, until it is used.
    secret: Option<[u8; 32]>,
}

/// Why an enrolment was refused (its `reason` on the wire).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnrolRefusal {
    /// The stable name.
    pub reason: &'static str,
    /// A sentence for the operator's log.
    pub detail: String,
}

fn refusal(reason: &'static str, detail: impl Into<String>) -> EnrolRefusal {
    EnrolRefusal {
        reason,
        detail: detail.into(),
    }
}

impl Approvers {
    /// The approvers of the file at `path` (which need not exist yet), with a fresh start-up
    /// enrolment secret; `None` when no randomness is available. No assertion verifies until
    /// the server binds the panel's origin ([`Approvers::bind_origin`]).
    #[must_use]
    pub fn new(path: PathBuf) -> Option<Approvers> {
        let secret = random32()?;
        let text = URL_SAFE_NO_PAD.encode(secret);
        let hash: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        Some(Approvers {
            path,
            binding: OnceLock::new(),
            secret_text: text,
            inner: Mutex::new(Inner {
                open: VecDeque::new(),
                secret: Some(hash),
            }),
        })
    }

    /// Binds the panel's origin (`http://localhost:PORT` on plain loopback,
    /// `https://HOST[:PORT]` over TLS) and relying party id (`localhost`, or the first trusted
    /// host); the server calls it once its listener is bound, and the first call wins.
    pub fn bind_origin(&self, origin: &str, rp_id: &str) {
        let _ = self.binding.set(Binding {
            origin: origin.to_owned(),
            rp_id: rp_id.to_owned(),
        });
    }

    /// The bound origin (`None` before [`Approvers::bind_origin`]).
    #[must_use]
    pub fn origin(&self) -> Option<&str> {
        self.binding.get().map(|binding| binding.origin.as_str())
    }

    /// The bound relying party id (`None` before [`Approvers::bind_origin`]).
    #[must_use]
    pub fn rp_id(&self) -> Option<&str> {
        self.binding.get().map(|binding| binding.rp_id.as_str())
    }

    /// The start-up enrolment secret, for the address `seal serve` prints once to its own
    /// terminal (`#pair=P&enrol=E`). It enrols one approver, once.
    #[must_use]
    pub fn enrol_secret(&self) -> &str {
        &self.secret_text
    }

    /// The approvers file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The registry as the file holds it now (empty when the file does not exist).
    ///
    /// # Errors
    /// The file cannot be read or does not parse.
    pub fn registry(&self) -> Result<ApproverRegistry, String> {
        match std::fs::read(&self.path) {
            Ok(bytes) => ApproverRegistry::parse(&bytes)
                .map_err(|error| format!("{}: {error}", self.path.display())),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                Ok(ApproverRegistry::new())
            }
            Err(error) => Err(format!("{}: {error}", self.path.display())),
        }
    }

    fn expected(&self, challenge: [u8; 32]) -> Expected<'_> {
        Expected {
            challenge,
            // Before the listener is bound no origin or RP id matches a browser's.
            origin: self.origin().unwrap_or_default(),
            rp_id: self.rp_id().unwrap_or_default(),
        }
    }

    /// Starts an enrolment: the options the page gives `navigator.credentials.create`, as JSON
    /// (`challenge`, `rp_id`, `user_id`, `exclude`: the enrolled credential ids).
    ///
    /// # Errors
    /// No randomness, or the approvers file does not read.
    pub fn enrol_start(&self) -> Result<String, EnrolRefusal> {
        let registry = self
            .registry()
            .map_err(|detail| refusal("approvers-file", detail))?;
        let nonce = random32().ok_or_else(|| refusal("random", "no randomness"))?;
        let user = random32().ok_or_else(|| refusal("random", "no randomness"))?;
        let mut inner = self.inner();
        let now = now_ms();
        inner.open.retain(|(_, expires)| *expires > now);
        if inner.open.len() >= MAX_OPEN_ENROLMENTS {
            inner.open.pop_front();
        }
        inner
            .open
            .push_back((nonce, now.saturating_add(ENROL_WINDOW_MS)));
        let exclude: Vec<String> = registry
            .iter()
            .map(|entry| URL_SAFE_NO_PAD.encode(&entry.approver().credential_id))
            .collect();
        Ok(serde_json::json!({
            "challenge": URL_SAFE_NO_PAD.encode(enrol_challenge(&nonce)),
            "rp_id": self.rp_id().unwrap_or_default(),
            "user_id": URL_SAFE_NO_PAD.encode(user.get(..16).unwrap_or_default()),
            "exclude": exclude,
        })
        .to_string())
    }

    /// Finishes an enrolment (`POST /api/approvers/enrol/finish` body): the new approver's
    /// credential id (base64url) once it is in the file.
    ///
    /// # Errors
    /// The body is malformed; no open enrolment matches the challenge; the registration does
    /// not verify; neither the start-up secret nor an enrolled approver's assertion vouches for
    /// it; the file cannot be written.
    pub fn enrol_finish(&self, body: &[u8]) -> Result<String, EnrolRefusal> {
        let finish = Finish::read(body).ok_or_else(|| refusal("malformed", "not an enrolment"))?;
        let decode = |text: &str| {
            URL_SAFE_NO_PAD
                .decode(text)
                .map_err(|_| refusal("malformed", "a member is not base64url"))
        };
        let client_data = decode(&finish.client_data_json)?;
        let attestation = decode(&finish.attestation_object)?;
        let mut registry = self
            .registry()
            .map_err(|detail| refusal("approvers-file", detail))?;
        let mut inner = self.inner();
        let now = now_ms();
        inner.open.retain(|(_, expires)| *expires > now);
        // The registration names its challenge: find the open enrolment it answers.
        let found = inner.open.iter().position(|(nonce, _)| {
            parse_registration(
                &client_data,
                &attestation,
                &self.expected(enrol_challenge(nonce)),
            )
            .is_ok()
        });
        let Some(at) = found else {
            let detail = match inner.open.front() {
                Some((nonce, _)) => parse_registration(
                    &client_data,
                    &attestation,
                    &self.expected(enrol_challenge(nonce)),
                )
                .err()
                .map_or_else(String::new, |refused| refused.to_string()),
                None => "no enrolment was started".to_owned(),
            };
            return Err(refusal("registration", detail));
        };
        let (nonce, _) = inner.open.get(at).copied().unwrap_or(([0; 32], 0));
        let approver = parse_registration(
            &client_data,
            &attestation,
            &self.expected(enrol_challenge(&nonce)),
        )
        .map_err(|refused| refusal("registration", refused.to_string()))?;
        let by_secret = finish.secret.as_deref().is_some_and(|secret| {
            let hash: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
            inner.secret == Some(hash)
        });
        if !by_secret {
            let Some(wire) = &finish.assertion else {
                return Err(refusal(
                    "unauthenticated",
                    "neither the start-up enrolment secret nor an approver's assertion",
                ));
            };
            if registry.is_empty() {
                return Err(refusal(
                    "unauthenticated",
                    "no approver is enrolled to vouch; use the address `seal serve` printed",
                ));
            }
            verify_wire_assertion(&registry, wire, &self.expected(enrol_challenge(&nonce)))
                .map_err(|detail| refusal("unauthenticated", detail))?;
        }
        let id = URL_SAFE_NO_PAD.encode(&approver.credential_id);
        let entry = RegisteredApprover::new(approver, &finish.name, now)
            .map_err(|error| refusal("name", error.to_string()))?;
        registry
            .insert(entry)
            .map_err(|error| refusal("duplicate", error.to_string()))?;
        write_private(&self.path, registry.to_json().as_bytes())
            .map_err(|error| refusal("approvers-file", error))?;
        inner.open.remove(at);
        if by_secret {
            inner.secret = None;
        }
        Ok(id)
    }

    /// The enrolled approvers as JSON: `{"approvers":[{"id","name","alg","enrolled_ms"}]}`.
    ///
    /// # Errors
    /// The approvers file does not read.
    pub fn list_json(&self) -> Result<String, String> {
        let registry = self.registry()?;
        let list: Vec<serde_json::Value> = registry
            .iter()
            .map(|entry| {
                serde_json::json!({
                    "id": URL_SAFE_NO_PAD.encode(&entry.approver().credential_id),
                    "name": entry.name(),
                    "alg": entry.approver().public_key.algorithm().name(),
                    "enrolled_ms": entry.enrolled_ms(),
                })
            })
            .collect();
        Ok(serde_json::json!({ "approvers": list }).to_string())
    }
}

impl AllowCheck for Approvers {
    fn approvers(&self) -> u64 {
        // A file that does not read counts as enrolled: an allow then needs an assertion that
        // cannot verify, so it is refused rather than taken on the token alone.
        self.registry().map_or(1, |registry| {
            u64::try_from(registry.len()).unwrap_or(u64::MAX)
        })
    }

    fn check(
        &self,
        entry_challenge: &[u8; 32],
        assertion: Option<&WireAssertion>,
    ) -> Result<(), String> {
        let registry = self.registry()?;
        let wire = assertion.ok_or("no assertion came with the allow")?;
        verify_wire_assertion(&registry, wire, &self.expected(*entry_challenge))
    }

    fn credentials(&self) -> Vec<String> {
        self.registry().map_or_else(
            |_| Vec::new(),
            |registry| {
                registry
                    .iter()
                    .map(|entry| URL_SAFE_NO_PAD.encode(&entry.approver().credential_id))
                    .collect()
            },
        )
    }

    fn enrolment(&self) -> Option<&Approvers> {
        Some(self)
    }
}

/// Verifies an assertion as it travels (each part base64url, strictly decoded) against
/// `registry` and `expected`: the one check the server and the waiting hooks share. The error
/// names the part that did not decode, or the WebAuthn refusal and its name.
///
/// # Errors
/// A part is not canonical base64url, or the assertion does not verify.
pub fn verify_wire_assertion(
    registry: &ApproverRegistry,
    wire: &WireAssertion,
    expected: &Expected<'_>,
) -> Result<(), String> {
    let decode = |text: &str, what: &str| {
        seal_verify::base64url::decode(text)
            .map_err(|_| format!("the assertion's {what} is not base64url"))
    };
    let credential_id = decode(&wire.credential_id, "credential id")?;
    let client_data_json = decode(&wire.client_data_json, "client data")?;
    let authenticator_data = decode(&wire.authenticator_data, "authenticator data")?;
    let signature = decode(&wire.signature, "signature")?;
    verify_assertion(
        registry,
        &Assertion {
            credential_id: &credential_id,
            client_data_json: &client_data_json,
            authenticator_data: &authenticator_data,
            signature: &signature,
        },
        expected,
    )
    .map(|_| ())
    .map_err(|refused| format!("{refused} ({})", refused.name()))
}

/// An enrolment's finish body.
struct Finish {
    name: String,
    client_data_json: String,
    attestation_object: String,
    secret: Option<String>,
    assertion: Option<WireAssertion>,
}

impl Finish {
    fn read(body: &[u8]) -> Option<Finish> {
        let value = parse(body, &JsonLimits::DEFAULT).ok()?;
        let mut fields = Fields::of(&value, "").ok()?;
        fields
            .only(&[
                "name",
                "client_data_json",
                "attestation_object",
                "secret",
                "assertion",
            ])
            .ok()?;
        let name = fields.string("name").ok()?.to_owned();
        let client_data_json = fields.string("client_data_json").ok()?.to_owned();
        let attestation_object = fields.string("attestation_object").ok()?.to_owned();
        let secret = match fields.optional("secret") {
            None | Some(Value::Null) => None,
            Some(_) => Some(fields.string("secret").ok()?.to_owned()),
        };
        let assertion = match fields.optional("assertion") {
            None | Some(Value::Null) => None,
            Some(_) => Some(WireAssertion::from_fields(fields.nested("assertion").ok()?).ok()?),
        };
        fields.finish().ok()?;
        Some(Finish {
            name,
            client_data_json,
            attestation_object,
            secret,
            assertion,
        })
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder (mode 0600), renamed
/// over it.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(|error| format!("{}: {error}", folder.display()))?;
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&temporary)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, path));
    written.map_err(|error| format!("{}: {error}", path.display()))
}
