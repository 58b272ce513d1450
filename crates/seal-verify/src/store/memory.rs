//! An in-memory trust store.

use std::collections::BTreeMap;
use std::fmt;

use super::record::KeyRecord;
use super::resolve::{check_record, IntendedUse, KeySource, ResolveError, Resolved};
use crate::time::UnixTime;

/// Most records one store holds: 4096.
pub const MAX_STORE_KEYS: usize = 4096;

/// Key records with unique ids and an expiry, resolved by [`check_record`].
///
/// After its expiry nothing resolves ([`ResolveError::StoreExpired`]). A key id is found in
/// `O(log n)` comparisons, so a store of [`MAX_STORE_KEYS`] keys costs each frame a dozen
/// comparisons, not thousands.
#[derive(Debug)]
pub struct MemoryTrustStore {
    expires: UnixTime,
    records: Vec<KeyRecord>,
    /// Every id held (records, and ids whose secret was not supplied) and where it is.
    index: BTreeMap<String, Held>,
}

/// Where an id of the store is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// The record at this position of `records`.
    Record(usize),
    /// Among the ids whose secret was not supplied.
    Unbound,
}

/// Why a record could not be added.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InsertError {
    /// A record with this id is already present.
    DuplicateKeyId {
        /// The id.
        key_id: String,
    },
    /// The store already holds [`MAX_STORE_KEYS`] records.
    TooManyKeys {
        /// The maximum.
        max: usize,
    },
}

impl fmt::Display for InsertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateKeyId { key_id } => {
                write!(f, "key id `{}` is already present", key_id.escape_debug())
            }
            Self::TooManyKeys { max } => write!(f, "store already holds {max} keys"),
        }
    }
}

impl std::error::Error for InsertError {}

impl MemoryTrustStore {
    /// An empty store that expires at `expires` (inclusive: `now > expires` fails).
    pub fn new(expires: UnixTime) -> MemoryTrustStore {
        MemoryTrustStore {
            expires,
            records: Vec::new(),
            index: BTreeMap::new(),
        }
    }

    /// The expiry.
    pub fn expires(&self) -> UnixTime {
        self.expires
    }

    /// Adds a record; ids are unique.
    pub fn insert(&mut self, record: KeyRecord) -> Result<(), InsertError> {
        self.reserve_id(record.id(), Held::Record(self.records.len()))?;
        self.records.push(record);
        Ok(())
    }

    /// The records, in insertion order.
    pub fn records(&self) -> &[KeyRecord] {
        &self.records
    }

    /// Records an id whose key exists but cannot be used (an HMAC key without its secret), so
    /// that resolving it says so.
    pub(crate) fn insert_unbound(&mut self, key_id: &str) -> Result<(), InsertError> {
        self.reserve_id(key_id, Held::Unbound)
    }

    /// Enters `key_id` in the index as held at `held`, unless the store is full or holds the
    /// id already.
    fn reserve_id(&mut self, key_id: &str, held: Held) -> Result<(), InsertError> {
        if self.index.len() >= MAX_STORE_KEYS {
            return Err(InsertError::TooManyKeys {
                max: MAX_STORE_KEYS,
            });
        }
        if self.index.contains_key(key_id) {
            return Err(InsertError::DuplicateKeyId {
                key_id: key_id.to_owned(),
            });
        }
        self.index.insert(key_id.to_owned(), held);
        Ok(())
    }
}

impl KeySource for MemoryTrustStore {
    #[inline]
    fn resolve(
        &self,
        key_id: &str,
        intended: &IntendedUse<'_>,
        now: UnixTime,
    ) -> Result<Resolved<'_>, ResolveError> {
        if now > self.expires {
            return Err(ResolveError::StoreExpired {
                expires: self.expires,
                now,
            });
        }
        match self.index.get(key_id) {
            Some(Held::Record(position)) => match self.records.get(*position) {
                Some(record) => check_record(record, intended, now),
                // The index only names positions of records it was given with.
                None => Err(ResolveError::UnknownKey {
                    key_id: key_id.to_owned(),
                }),
            },
            Some(Held::Unbound) => Err(ResolveError::SecretNotSupplied {
                key_id: key_id.to_owned(),
            }),
            None => Err(ResolveError::UnknownKey {
                key_id: key_id.to_owned(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::VerifyingKey;
    use crate::secret::HmacSecret;
    use crate::store::resolve::{Purpose, StoreOperation};
    use crate::store::{FrameScope, KeyStatus, Scopes, Validity};
    use crate::tag::TagLength;
    use crate::HmacKey;

    const NOW: UnixTime = UnixTime(1_800_000_000);

    fn record(id: &str) -> KeyRecord {
        let key = HmacKey::new(
            HmacSecret::from_bytes(&[9; 32]).unwrap(),
            TagLength::STANDARD,
        );
        let scopes = Scopes {
            frames: vec![FrameScope::new("channel", vec![]).unwrap()],
            ..Scopes::default()
        };
        let validity = Validity {
            not_before: UnixTime(0),
            not_after: UnixTime(1_900_000_000),
        };
        KeyRecord::new(
            id,
            VerifyingKey::Hmac(key),
            validity,
            KeyStatus::Active,
            scopes,
        )
        .unwrap()
    }

    fn resolved_id(store: &MemoryTrustStore, key_id: &str) -> Result<String, ResolveError> {
        let intended = IntendedUse {
            operation: StoreOperation::Verify,
            purpose: Purpose::Frame {
                element: "channel",
                attributes: &[],
            },
        };
        store
            .resolve(key_id, &intended, NOW)
            .map(|resolved| resolved.record.id().to_owned())
    }

    /// A full store, filled in an order unlike the ids' order: every id resolves to its own
    /// record, one more is refused, and a repeated id (of a record or of an unbound id) is
    /// refused whatever was inserted in between.
    #[test]
    fn a_full_store_resolves_every_id_to_its_own_record() {
        let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
        let ids: Vec<String> = (0..MAX_STORE_KEYS - 1)
            .map(|n| format!("k{:04}", (n * 7919) % MAX_STORE_KEYS))
            .collect();
        store.insert_unbound("unbound").unwrap();
        for id in &ids {
            store.insert(record(id)).unwrap();
        }
        assert_eq!(store.records().len(), MAX_STORE_KEYS - 1);
        for (position, id) in ids.iter().enumerate() {
            assert_eq!(resolved_id(&store, id).as_deref(), Ok(id.as_str()));
            assert_eq!(store.records()[position].id(), id);
        }
        assert_eq!(
            resolved_id(&store, "unbound"),
            Err(ResolveError::SecretNotSupplied {
                key_id: "unbound".into()
            })
        );
        assert_eq!(
            resolved_id(&store, "k"),
            Err(ResolveError::UnknownKey { key_id: "k".into() })
        );
        let too_many = Err(InsertError::TooManyKeys {
            max: MAX_STORE_KEYS,
        });
        assert_eq!(store.insert(record("another")), too_many);
        assert_eq!(store.insert_unbound("another"), too_many);
    }

    #[test]
    fn repeated_ids_are_refused_between_records_and_unbound_ids() {
        let mut store = MemoryTrustStore::new(UnixTime(1_900_000_000));
        store.insert(record("a")).unwrap();
        store.insert_unbound("b").unwrap();
        store.insert(record("c")).unwrap();
        for id in ["a", "b", "c"] {
            let duplicate = Err(InsertError::DuplicateKeyId { key_id: id.into() });
            assert_eq!(store.insert(record(id)), duplicate);
            assert_eq!(store.insert_unbound(id), duplicate);
        }
        assert_eq!(store.records().len(), 2);
        assert_eq!(resolved_id(&store, "c").as_deref(), Ok("c"));
        assert_eq!(resolved_id(&store, "a").as_deref(), Ok("a"));
    }
}
