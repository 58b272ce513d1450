//! The secret key file written by `seal keygen` and read by `sign`, `scan`, the hooks and
//! `doctor`: `{"type":"seal/secret-keys/v1","keys":[..]}`, mode 0600.

use seal::json::Value;
use seal::{base64url, ApproverKey, FrameKey, COMPACT_TAG_CHARS};
use zeroize::Zeroizing;

use crate::failure::{quoted, Failure};
use crate::io::{read_file, MAX_FILE_BYTES};
use crate::json_in;
use crate::json_out::J;

/// The `type` of a secret key file.
pub const SECRET_KEYS_TYPE: &str = "seal/secret-keys/v1";

/// One secret key.
pub enum Secret {
    /// An HMAC frame key (standard tags) with the tag length in characters the file gives it.
    Hmac {
        /// The key, checked at load (32 to 1024 bytes).
        key: FrameKey,
        /// Tag length in base64url characters, bound when the key signs.
        tag_chars: u8,
    },
    /// An Ed25519 key (store root or approver), from its 32-byte seed.
    Ed25519 {
        /// The seed (wiped when dropped).
        seed: Zeroizing<Vec<u8>>,
    },
}

/// A secret key with its id.
pub struct SecretKey {
    /// The key id, as in the store document.
    pub id: String,
    /// The material.
    pub secret: Secret,
}

/// The keys of a secret key file.
pub struct SecretKeys {
    /// In file order.
    pub keys: Vec<SecretKey>,
}

impl SecretKeys {
    /// Reads and checks the file at `path`.
    pub fn load(path: &str) -> Result<SecretKeys, Failure> {
        let bytes = Zeroizing::new(read_file(path, MAX_FILE_BYTES, "key file")?);
        SecretKeys::parse(&bytes).map_err(|failure| {
            Failure::keys(format!("key file {}: {}", quoted(path), failure.message))
        })
    }

    /// Parses a secret key file.
    pub fn parse(bytes: &[u8]) -> Result<SecretKeys, Failure> {
        let what = "key file";
        let top = json_in::object(bytes, what)?;
        json_in::only(&top, &["type", "keys"], what)?;
        if json_in::string(&top, "type", what)? != SECRET_KEYS_TYPE {
            return Err(Failure::keys(format!("`type` is not `{SECRET_KEYS_TYPE}`")));
        }
        let mut keys = Vec::new();
        for (index, entry) in json_in::array(&top, "keys", what)?.iter().enumerate() {
            let what = format!("key file: keys[{index}]");
            let Value::Object(entry) = entry else {
                return Err(Failure::keys(format!("{what} is not an object")));
            };
            let id = json_in::string(entry, "id", &what)?.to_owned();
            let secret = match json_in::string(entry, "algorithm", &what)? {
                "hmac-sha256" => {
                    json_in::only(entry, &["id", "algorithm", "secret", "tag_chars"], &what)?;
                    let bytes = decode(json_in::string(entry, "secret", &what)?, &what)?;
                    let key = FrameKey::from_secret(&bytes)
                        .map_err(|error| Failure::keys(format!("{what}: {error}")))?;
                    let tag_chars = u8::try_from(json_in::integer(entry, "tag_chars", &what)?)
                        .map_err(|_| Failure::keys(format!("{what}: `tag_chars` out of range")))?;
                    Secret::Hmac { key, tag_chars }
                }
                "ed25519" => {
                    json_in::only(entry, &["id", "algorithm", "seed"], &what)?;
                    let seed = decode(json_in::string(entry, "seed", &what)?, &what)?;
                    ApproverKey::check_seed(&seed)
                        .map_err(|error| Failure::keys(format!("{what}: {error}")))?;
                    Secret::Ed25519 { seed }
                }
                other => {
                    return Err(Failure::keys(format!(
                        "{what}: unknown algorithm {}",
                        quoted(other)
                    )))
                }
            };
            if keys.iter().any(|key: &SecretKey| key.id == id) {
                return Err(Failure::keys(format!(
                    "{what}: key id {} twice",
                    quoted(&id)
                )));
            }
            keys.push(SecretKey { id, secret });
        }
        Ok(SecretKeys { keys })
    }

    /// The HMAC keys by key id, for binding to a trust store (which gives their tag length).
    pub fn frame_keys(&self) -> Vec<(&str, &FrameKey)> {
        self.keys
            .iter()
            .filter_map(|entry| match &entry.secret {
                Secret::Hmac { key, .. } => Some((entry.id.as_str(), key)),
                Secret::Ed25519 { .. } => None,
            })
            .collect()
    }

    /// The key with `id`.
    pub fn get(&self, id: &str) -> Result<&SecretKey, Failure> {
        self.keys
            .iter()
            .find(|key| key.id == id)
            .ok_or_else(|| Failure::keys(format!("no key {} in the key file", quoted(id))))
    }

    /// The HMAC key with `id`, bound to the file's tag length.
    pub fn hmac_key(&self, id: &str) -> Result<FrameKey, Failure> {
        match &self.get(id)?.secret {
            Secret::Hmac { key, tag_chars } if *tag_chars == COMPACT_TAG_CHARS => key
                .duplicate()
                .compact()
                .map_err(|error| Failure::keys(format!("key {}: {error}", quoted(id)))),
            Secret::Hmac { key, tag_chars } => key
                .duplicate()
                .with_tag_chars(*tag_chars)
                .map_err(|error| Failure::keys(format!("key {}: {error}", quoted(id)))),
            Secret::Ed25519 { .. } => Err(Failure::keys(format!(
                "key {} is not an HMAC key",
                quoted(id)
            ))),
        }
    }

    /// The Ed25519 key with `id` (an approver key, or a store root).
    pub fn approver_key(&self, id: &str) -> Result<ApproverKey, Failure> {
        match &self.get(id)?.secret {
            Secret::Ed25519 { seed } => ApproverKey::from_seed(seed)
                .map_err(|error| Failure::keys(format!("key {}: {error}", quoted(id)))),
            Secret::Hmac { .. } => Err(Failure::keys(format!(
                "key {} is not an Ed25519 key",
                quoted(id)
            ))),
        }
    }
}

/// The JSON text of a secret key file holding `entries` (id, algorithm, base64url material,
/// tag characters for HMAC keys).
pub fn key_file_json(entries: &[(&str, Secret64)]) -> String {
    let keys = entries
        .iter()
        .map(|(id, material)| match material {
            Secret64::Hmac { secret, tag_chars } => J::Obj(vec![
                ("id", J::str(*id)),
                ("algorithm", J::str("hmac-sha256")),
                ("secret", J::str(secret.clone())),
                ("tag_chars", J::Num(u64::from(*tag_chars))),
            ]),
            Secret64::Ed25519 { seed } => J::Obj(vec![
                ("id", J::str(*id)),
                ("algorithm", J::str("ed25519")),
                ("seed", J::str(seed.clone())),
            ]),
        })
        .collect();
    let mut text = J::Obj(vec![
        ("type", J::str(SECRET_KEYS_TYPE)),
        ("keys", J::Arr(keys)),
    ])
    .to_text();
    text.push('\n');
    text
}

/// Key material in its file spelling (base64url).
pub enum Secret64 {
    /// An HMAC secret and its tag length in characters.
    Hmac {
        /// base64url of the secret.
        secret: String,
        /// Tag length in characters.
        tag_chars: u8,
    },
    /// An Ed25519 seed.
    Ed25519 {
        /// base64url of the seed.
        seed: String,
    },
}

/// Decodes secret bytes; they are wiped when dropped.
fn decode(text: &str, what: &str) -> Result<Zeroizing<Vec<u8>>, Failure> {
    base64url::decode(text)
        .map(Zeroizing::new)
        .map_err(|error| Failure::keys(format!("{what}: {error}")))
}
