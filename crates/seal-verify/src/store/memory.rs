//! An in-memory trust store.

use std::fmt;

use super::record::KeyRecord;
use super::resolve::{check_record, IntendedUse, ResolveError, Resolved, TrustStore};
use crate::time::UnixTime;

/// Most records one store holds: 4096.
pub const MAX_STORE_KEYS: usize = 4096;

/// Key records with unique ids and an expiry, resolved by [`check_record`].
///
/// After its expiry nothing resolves ([`ResolveError::StoreExpired`]).
#[derive(Debug)]
pub struct MemoryTrustStore {
    expires: UnixTime,
    records: Vec<KeyRecord>,
    unbound: Vec<String>,
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
            unbound: Vec::new(),
        }
    }

    /// The expiry.
    pub fn expires(&self) -> UnixTime {
        self.expires
    }

    /// Adds a record; ids are unique.
    pub fn insert(&mut self, record: KeyRecord) -> Result<(), InsertError> {
        self.reserve_id(record.id())?;
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
        self.reserve_id(key_id)?;
        self.unbound.push(key_id.to_owned());
        Ok(())
    }

    fn reserve_id(&self, key_id: &str) -> Result<(), InsertError> {
        if self.records.len() + self.unbound.len() >= MAX_STORE_KEYS {
            return Err(InsertError::TooManyKeys {
                max: MAX_STORE_KEYS,
            });
        }
        let taken = self.records.iter().any(|record| record.id() == key_id)
            || self.unbound.iter().any(|id| id == key_id);
        if taken {
            return Err(InsertError::DuplicateKeyId {
                key_id: key_id.to_owned(),
            });
        }
        Ok(())
    }
}

impl TrustStore for MemoryTrustStore {
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
        if let Some(record) = self.records.iter().find(|record| record.id() == key_id) {
            return check_record(record, intended, now);
        }
        if self.unbound.iter().any(|id| id == key_id) {
            return Err(ResolveError::SecretNotSupplied {
                key_id: key_id.to_owned(),
            });
        }
        Err(ResolveError::UnknownKey {
            key_id: key_id.to_owned(),
        })
    }
}
