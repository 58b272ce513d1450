//! The approver registry: the enrolled approvers, and the JSON file the edge keeps them in
//! (spec/webauthn-approval.md, "Registry file").

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use seal_parse::json::{self, FieldError, Fields, JsonError, JsonLimits, Number, Object, Value};

use super::assertion::VerifiedAssertion;
use super::key::{ApproverAlgorithm, ApproverPublicKey};
use super::registration::Approver;
use super::MAX_CREDENTIAL_ID_BYTES;
use crate::base64url;

/// The registry file's `version`.
pub const REGISTRY_VERSION: u64 = 1;

/// Most approvers a registry holds.
pub const MAX_APPROVERS: usize = 64;

/// Longest approver name, in bytes (printable ASCII, space included).
pub const MAX_APPROVER_NAME_BYTES: usize = 64;

/// Largest registry file, in bytes (256 KiB).
pub const MAX_REGISTRY_BYTES: usize = 256 * 1024;

/// Deepest nesting of a registry file (the root, the array, an entry).
const MAX_REGISTRY_DEPTH: usize = 3;

/// Largest `enrolled_ms`: 2^53, the largest integer every JSON reader keeps exactly.
const MAX_ENROLLED_MS: u64 = json::MAX_EXACT_INTEGER;

/// An enrolled approver with its registry details: the credential, a display name, and when it
/// was enrolled. Built only through [`RegisteredApprover::new`] or a parsed file, so its name
/// and credential id are always within the format's limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredApprover {
    approver: Approver,
    name: String,
    enrolled_ms: u64,
}

/// The enrolled approvers, keyed by credential id.
///
/// `parse(to_json(x)) == x`, and `to_json` gives the same bytes for the same approvers whatever
/// the order they were inserted in.
///
/// ```
/// use seal_verify::webauthn::{
///     Approver, ApproverAlgorithm, ApproverPublicKey, ApproverRegistry, RegisteredApprover,
/// };
///
/// let key = ApproverPublicKey::from_bytes(ApproverAlgorithm::Ed25519, &[3; 32]).unwrap();
/// let approver = Approver { credential_id: vec![1, 2, 3], public_key: key, sign_count: 0 };
/// let mut registry = ApproverRegistry::new();
/// registry.insert(RegisteredApprover::new(approver, "laptop key", 1_800_000_000_000)?)?;
/// let text = registry.to_json();
/// assert_eq!(
///     text,
///     r#"{"approvers":[{"alg":"ed25519","enrolled_ms":1800000000000,"id":"AQID","name":"laptop key","public_key":"AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM","sign_count":0}],"version":1}"#
/// );
/// assert_eq!(ApproverRegistry::parse(text.as_bytes())?, registry);
/// # Ok::<(), seal_verify::webauthn::RegistryError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApproverRegistry {
    approvers: BTreeMap<Vec<u8>, RegisteredApprover>,
}

/// A registry file or an approver was refused: where (`approvers[2].name`; empty for the
/// document or for an approver given in code) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryError {
    /// JSON path of the value at fault.
    pub path: String,
    /// What is wrong.
    pub kind: RegistryErrorKind,
}

/// What is wrong with a registry file or an approver.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryErrorKind {
    /// The file is larger than [`MAX_REGISTRY_BYTES`].
    TooLarge {
        /// Bytes given.
        len: usize,
    },
    /// The text is not strict JSON (duplicate keys included).
    Json(JsonError),
    /// A member is missing, unknown, of the wrong type, or an array is too long.
    Field(FieldError),
    /// `version` is not 1.
    Version {
        /// The version found.
        found: u64,
    },
    /// A credential id that is not canonical base64url of 1 to
    /// [`MAX_CREDENTIAL_ID_BYTES`] bytes.
    CredentialId,
    /// A name that is empty, longer than [`MAX_APPROVER_NAME_BYTES`] or not printable ASCII.
    Name,
    /// `alg` is neither `es256` nor `ed25519`.
    Algorithm {
        /// The name found.
        found: String,
    },
    /// A public key that is not canonical base64url of the algorithm's key (65 bytes starting
    /// with 0x04 for es256, 32 bytes for ed25519).
    PublicKey,
    /// `enrolled_ms` beyond 2^53 or `sign_count` beyond 2^32 - 1.
    OutOfRange,
    /// Two approvers with one credential id.
    DuplicateCredential,
    /// More than [`MAX_APPROVERS`] approvers.
    TooManyApprovers,
}

impl RegisteredApprover {
    /// An approver with its name (1 to [`MAX_APPROVER_NAME_BYTES`] bytes of printable ASCII,
    /// space included) and enrolment time in Unix milliseconds (at most 2^53). The credential
    /// id must be 1 to [`MAX_CREDENTIAL_ID_BYTES`] bytes, and an ES256 key an uncompressed point
    /// (`0x04` first), as the registry file requires.
    pub fn new(
        approver: Approver,
        name: &str,
        enrolled_ms: u64,
    ) -> Result<RegisteredApprover, RegistryError> {
        if approver.credential_id.is_empty()
            || approver.credential_id.len() > MAX_CREDENTIAL_ID_BYTES
        {
            return Err(RegistryError::bare(RegistryErrorKind::CredentialId));
        }
        let key = &approver.public_key;
        if ApproverPublicKey::from_bytes(key.algorithm(), key.as_bytes()).is_none() {
            return Err(RegistryError::bare(RegistryErrorKind::PublicKey));
        }
        if !is_approver_name(name) {
            return Err(RegistryError::bare(RegistryErrorKind::Name));
        }
        if enrolled_ms > MAX_ENROLLED_MS {
            return Err(RegistryError::bare(RegistryErrorKind::OutOfRange));
        }
        Ok(RegisteredApprover {
            approver,
            name: name.to_owned(),
            enrolled_ms,
        })
    }

    /// The credential.
    pub fn approver(&self) -> &Approver {
        &self.approver
    }

    /// The display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// When the approver was enrolled, in Unix milliseconds.
    pub fn enrolled_ms(&self) -> u64 {
        self.enrolled_ms
    }
}

impl ApproverRegistry {
    /// An empty registry.
    pub fn new() -> ApproverRegistry {
        ApproverRegistry::default()
    }

    /// Reads a registry file (strict JSON, at most [`MAX_REGISTRY_BYTES`]): exactly `version`
    /// (1) and `approvers`, each approver exactly `id`, `name`, `alg`, `public_key`,
    /// `enrolled_ms` and `sign_count`; unknown members, duplicate keys and duplicate
    /// credential ids are refused; at most [`MAX_APPROVERS`]. Approvers may come in any order.
    pub fn parse(input: &[u8]) -> Result<ApproverRegistry, RegistryError> {
        if input.len() > MAX_REGISTRY_BYTES {
            return Err(RegistryError::bare(RegistryErrorKind::TooLarge {
                len: input.len(),
            }));
        }
        let mut limits = JsonLimits::default();
        limits.max_bytes = MAX_REGISTRY_BYTES;
        limits.max_depth = MAX_REGISTRY_DEPTH;
        let value = json::parse(input, &limits).map_err(|error| RegistryError {
            path: error.path.clone(),
            kind: RegistryErrorKind::Json(error),
        })?;
        let mut reader = Fields::of(&value, "")?;
        let version_path = reader.path("version");
        let version = reader.integer("version")?;
        if version != REGISTRY_VERSION {
            return Err(RegistryError::at(
                version_path,
                RegistryErrorKind::Version { found: version },
            ));
        }
        let items = reader.array("approvers", MAX_APPROVERS)?;
        reader.finish()?;
        let mut registry = ApproverRegistry::new();
        for (index, item) in items.iter().enumerate() {
            let path = format!("approvers[{index}]");
            let entry = parse_entry(item, &path)?;
            registry
                .insert(entry)
                .map_err(|error| RegistryError::at(format!("{path}.id"), error.kind))?;
        }
        Ok(registry)
    }

    /// The registry file: canonical JSON (RFC 8785: members sorted, no whitespace), approvers
    /// sorted by credential id bytes. The same approvers always give the same bytes.
    pub fn to_json(&self) -> String {
        let approvers: Vec<Value<'static>> = self.approvers.values().map(entry_value).collect();
        let document = object(vec![
            ("approvers", Value::Array(approvers)),
            ("version", number(REGISTRY_VERSION)),
        ]);
        String::from_utf8_lossy(&document.canonical_bytes()).into_owned()
    }

    /// Whether no approver is enrolled.
    pub fn is_empty(&self) -> bool {
        self.approvers.is_empty()
    }

    /// Number of approvers.
    pub fn len(&self) -> usize {
        self.approvers.len()
    }

    /// The approver of a credential id.
    pub fn get(&self, credential_id: &[u8]) -> Option<&RegisteredApprover> {
        self.approvers.get(credential_id)
    }

    /// The approvers, by credential id.
    pub fn iter(&self) -> impl Iterator<Item = &RegisteredApprover> {
        self.approvers.values()
    }

    /// Enrols an approver; refuses a credential id already enrolled
    /// ([`RegistryErrorKind::DuplicateCredential`]) and a registry already holding
    /// [`MAX_APPROVERS`] ([`RegistryErrorKind::TooManyApprovers`]).
    pub fn insert(&mut self, entry: RegisteredApprover) -> Result<(), RegistryError> {
        if self.approvers.contains_key(&entry.approver.credential_id) {
            return Err(RegistryError::bare(RegistryErrorKind::DuplicateCredential));
        }
        if self.approvers.len() >= MAX_APPROVERS {
            return Err(RegistryError::bare(RegistryErrorKind::TooManyApprovers));
        }
        self.approvers
            .insert(entry.approver.credential_id.clone(), entry);
        Ok(())
    }

    /// Removes the approver of a credential id and returns it.
    pub fn remove(&mut self, credential_id: &[u8]) -> Option<RegisteredApprover> {
        self.approvers.remove(credential_id)
    }

    /// Records a verified assertion's signature count on its approver, so that the same or a
    /// lower count is refused next time. The count never goes down. Returns whether the
    /// approver is still enrolled.
    pub fn record(&mut self, verified: &VerifiedAssertion) -> bool {
        match self.approvers.get_mut(verified.credential_id()) {
            Some(entry) => {
                let count = &mut entry.approver.sign_count;
                *count = (*count).max(verified.sign_count());
                true
            }
            None => false,
        }
    }
}

impl RegistryError {
    fn at(path: String, kind: RegistryErrorKind) -> RegistryError {
        RegistryError { path, kind }
    }

    fn bare(kind: RegistryErrorKind) -> RegistryError {
        RegistryError {
            path: String::new(),
            kind,
        }
    }
}

impl From<FieldError> for RegistryError {
    fn from(error: FieldError) -> RegistryError {
        RegistryError {
            path: error.at.clone(),
            kind: RegistryErrorKind::Field(error),
        }
    }
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.path.is_empty() {
            "approver registry"
        } else {
            self.path.as_str()
        };
        match &self.kind {
            RegistryErrorKind::TooLarge { len } => write!(
                f,
                "{at}: {len} bytes, more than the {MAX_REGISTRY_BYTES} allowed"
            ),
            RegistryErrorKind::Json(error) => write!(f, "{at}: {error}"),
            RegistryErrorKind::Field(error) => write!(f, "{error}"),
            RegistryErrorKind::Version { found } => {
                write!(f, "{at}: version `{found}`, expected {REGISTRY_VERSION}")
            }
            RegistryErrorKind::CredentialId => write!(
                f,
                "{at}: not canonical base64url of 1 to {MAX_CREDENTIAL_ID_BYTES} bytes"
            ),
            RegistryErrorKind::Name => write!(
                f,
                "{at}: a name is 1 to {MAX_APPROVER_NAME_BYTES} bytes of printable ascii"
            ),
            RegistryErrorKind::Algorithm { found } => write!(
                f,
                "{at}: algorithm `{}` is neither `es256` nor `ed25519`",
                found.escape_default()
            ),
            RegistryErrorKind::PublicKey => {
                write!(f, "{at}: not canonical base64url of the algorithm's key")
            }
            RegistryErrorKind::OutOfRange => write!(f, "{at}: integer out of range"),
            RegistryErrorKind::DuplicateCredential => {
                write!(f, "{at}: credential id is already enrolled")
            }
            RegistryErrorKind::TooManyApprovers => {
                write!(f, "{at}: more than {MAX_APPROVERS} approvers")
            }
        }
    }
}

impl std::error::Error for RegistryError {}

fn is_approver_name(name: &str) -> bool {
    (1..=MAX_APPROVER_NAME_BYTES).contains(&name.len())
        && name.bytes().all(|byte| (0x20..=0x7e).contains(&byte))
}

fn parse_entry(value: &Value<'_>, path: &str) -> Result<RegisteredApprover, RegistryError> {
    let mut reader = Fields::of(value, path)?;
    let id_path = reader.path("id");
    let credential_id = base64url::decode(reader.string("id")?)
        .ok()
        .filter(|id| !id.is_empty() && id.len() <= MAX_CREDENTIAL_ID_BYTES)
        .ok_or_else(|| RegistryError::at(id_path, RegistryErrorKind::CredentialId))?;
    let name_path = reader.path("name");
    let name = reader.string("name")?;
    if !is_approver_name(name) {
        return Err(RegistryError::at(name_path, RegistryErrorKind::Name));
    }
    let alg_path = reader.path("alg");
    let alg = reader.string("alg")?;
    let algorithm = ApproverAlgorithm::from_name(alg).ok_or_else(|| {
        RegistryError::at(
            alg_path,
            RegistryErrorKind::Algorithm {
                found: alg.to_owned(),
            },
        )
    })?;
    let key_path = reader.path("public_key");
    let public_key = base64url::decode(reader.string("public_key")?)
        .ok()
        .and_then(|bytes| ApproverPublicKey::from_bytes(algorithm, &bytes))
        .ok_or_else(|| RegistryError::at(key_path, RegistryErrorKind::PublicKey))?;
    let enrolled_ms = reader.integer("enrolled_ms")?;
    let count_path = reader.path("sign_count");
    let sign_count = u32::try_from(reader.integer("sign_count")?)
        .map_err(|_| RegistryError::at(count_path, RegistryErrorKind::OutOfRange))?;
    reader.finish()?;
    let approver = Approver {
        credential_id,
        public_key,
        sign_count,
    };
    RegisteredApprover::new(approver, name, enrolled_ms).map_err(|error| RegistryError {
        path: path.to_owned(),
        kind: error.kind,
    })
}

fn entry_value(entry: &RegisteredApprover) -> Value<'static> {
    let key = &entry.approver.public_key;
    object(vec![
        ("alg", text(key.algorithm().name())),
        ("enrolled_ms", number(entry.enrolled_ms)),
        (
            "id",
            text(&base64url::encode(&entry.approver.credential_id)),
        ),
        ("name", text(&entry.name)),
        ("public_key", text(&base64url::encode(key.as_bytes()))),
        (
            "sign_count",
            Value::Number(Number::from(entry.approver.sign_count)),
        ),
    ])
}

fn object(members: Vec<(&'static str, Value<'static>)>) -> Value<'static> {
    let mut object = Object::new();
    for (key, value) in members {
        // The keys given are distinct literals: an insert cannot meet a key already present.
        let inserted = object.insert(key, value);
        debug_assert!(inserted.is_ok(), "distinct member names");
    }
    Value::Object(object)
}

fn text(value: &str) -> Value<'static> {
    Value::String(Cow::Owned(value.to_owned()))
}

/// A registry integer: every one written is at most 2^53 (the version, `enrolled_ms` as
/// [`RegisteredApprover::new`] bounds it), which a [`Number`] holds exactly.
fn number(value: u64) -> Value<'static> {
    debug_assert!(
        value <= MAX_ENROLLED_MS,
        "registry integers are at most 2^53"
    );
    let exact = i64::try_from(value.min(MAX_ENROLLED_MS)).unwrap_or(0);
    match Number::from_i64(exact) {
        Ok(number) => Value::Number(number),
        Err(_) => Value::Null,
    }
}
