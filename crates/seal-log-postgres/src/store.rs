//! The connection to the fleet database: installing the schema, granting a pushing role,
//! pushing checkpoints and records, reading the held checkpoint.

use postgres::{Client, NoTls};
use seal_record::tlog::MerkleHash;

use crate::refusal::{checkpoint_refusal, records_refusal, FleetError, PushContext};

/// The tables and functions, with `@SCHEMA@` for the schema's quoted name.
const SCHEMA_SQL: &str = include_str!("schema.sql");

/// The grants of a pushing role, with `@SCHEMA@` and `@ROLE@` for quoted names.
const GRANTS_SQL: &str = include_str!("grants.sql");

/// A connection to the fleet database, working in the connection's current schema (the first
/// existing schema of its `search_path`; a URL sets it with `options=-csearch_path%3Dname`).
pub struct FleetLog {
    client: Client,
    schema: String,
}

/// A consistency proof from the tree of `old_size` leaves (the size the pusher read as held)
/// to the pushed checkpoint's tree, as [`seal_record::tlog::Tree::consistency_proof`] gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsistencyProof<'a> {
    old_size: u64,
    hashes: &'a [MerkleHash],
}

impl<'a> ConsistencyProof<'a> {
    /// The proof `hashes` from size `old_size`. The first push of a log proves from size 0
    /// with no hashes.
    pub fn new(old_size: u64, hashes: &'a [MerkleHash]) -> ConsistencyProof<'a> {
        ConsistencyProof { old_size, hashes }
    }

    /// The size the proof starts at.
    pub fn old_size(&self) -> u64 {
        self.old_size
    }

    /// The proof's hashes.
    pub fn hashes(&self) -> &'a [MerkleHash] {
        self.hashes
    }
}

/// The witness of an accepted push: the database held the pushed checkpoint, or one of the
/// same size and root, when the push committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    origin: String,
    size: u64,
    previous_size: u64,
}

impl Accepted {
    /// The log.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The size accepted.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The size held before the push (0 for a log seen for the first time; equal to
    /// [`Accepted::size`] when that checkpoint was already held).
    pub fn previous_size(&self) -> u64 {
        self.previous_size
    }
}

/// The checkpoint the database holds for a log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldCheckpoint {
    /// The tree size.
    pub size: u64,
    /// The tree root.
    pub root: MerkleHash,
    /// The signed note as pushed (its signatures are not checked by the database).
    pub note: String,
    /// When the database accepted it, in seconds since the Unix epoch.
    pub updated_unix_seconds: i64,
}

/// A record as the database stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecord {
    /// The record's index in its log.
    pub index: u64,
    /// The record's bytes.
    pub record: Vec<u8>,
    /// The leaf hash the database computed, SHA-256(0x00 || record).
    pub leaf: MerkleHash,
}

impl FleetLog {
    /// Connects to the database at `url` (a `postgres://` URL or a key-value string, without
    /// TLS) and reads its current schema.
    pub fn connect(url: &str) -> Result<FleetLog, FleetError> {
        FleetLog::from_client(Client::connect(url, NoTls)?)
    }

    /// Wraps a connection made by the caller (for TLS or other connection settings) and reads
    /// its current schema.
    pub fn from_client(mut client: Client) -> Result<FleetLog, FleetError> {
        let row = client.query_one("SELECT current_schema()", &[])?;
        let schema: Option<String> = row.try_get(0)?;
        let schema = schema.ok_or(FleetError::NoSchema)?;
        Ok(FleetLog { client, schema })
    }

    /// The schema the store lives in.
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// Creates the tables and functions if they are missing and replaces the functions with
    /// this version's, in one transaction holding an advisory lock, so concurrent installs
    /// wait for each other. The connecting role becomes the owner: install as a role that no
    /// machine pushes as.
    pub fn install_schema(&mut self) -> Result<(), FleetError> {
        let sql = SCHEMA_SQL.replace("@SCHEMA@", &quote_ident(&self.schema));
        let mut transaction = self.client.transaction()?;
        transaction.execute(
            "SELECT pg_advisory_xact_lock(hashtext('seal_fleet_install'))",
            &[],
        )?;
        transaction.batch_execute(&sql)?;
        transaction.commit()?;
        Ok(())
    }

    /// Lets the existing role `role` push: it may read the tables and call the push
    /// functions, and holds no right to write a table (spec/audit-fleet.md, "Grants").
    pub fn grant_pusher(&mut self, role: &str) -> Result<(), FleetError> {
        let sql = GRANTS_SQL
            .replace("@SCHEMA@", &quote_ident(&self.schema))
            .replace("@ROLE@", &quote_ident(role));
        let mut transaction = self.client.transaction()?;
        transaction.batch_execute(&sql)?;
        transaction.commit()?;
        Ok(())
    }

    /// Pushes the checkpoint of size `size` and root `root` of the log `origin`, signed as
    /// `note` (whose body must be that checkpoint), with the consistency proof from the size
    /// the pusher read as held. The database accepts it only if it extends the checkpoint it
    /// holds; otherwise the error is [`FleetError::Refused`] with the [`crate::FleetRefusal`].
    pub fn push(
        &mut self,
        origin: &str,
        note: &str,
        size: u64,
        root: &MerkleHash,
        proof: ConsistencyProof<'_>,
    ) -> Result<Accepted, FleetError> {
        let size_sql = to_bigint(size)?;
        let from_sql = to_bigint(proof.old_size)?;
        let hashes: Vec<&[u8]> = proof
            .hashes
            .iter()
            .map(|hash| hash.as_bytes().as_slice())
            .collect();
        let statement = format!(
            "SELECT {}.seal_push_checkpoint($1, $2, $3, $4, $5, $6)",
            quote_ident(&self.schema)
        );
        let context = PushContext {
            origin,
            size,
            root,
            proof_from: proof.old_size,
        };
        let row = self
            .client
            .query_one(
                &statement,
                &[
                    &origin,
                    &size_sql,
                    &root.as_bytes().as_slice(),
                    &note,
                    &from_sql,
                    &hashes,
                ],
            )
            .map_err(|error| checkpoint_refusal(error, &context))?;
        let previous: i64 = row.try_get(0)?;
        Ok(Accepted {
            origin: origin.to_owned(),
            size,
            previous_size: from_bigint(previous)?,
        })
    }

    /// Pushes the records of the log `origin` at indexes `first`, `first + 1`, ...; every
    /// index must lie below the held size, and a record already stored at an index must be
    /// the same bytes. The database computes each leaf hash. Returns how many records were
    /// newly stored.
    pub fn push_records(
        &mut self,
        origin: &str,
        first: u64,
        records: &[&[u8]],
    ) -> Result<u64, FleetError> {
        let first_sql = to_bigint(first)?;
        let statement = format!(
            "SELECT {}.seal_push_records($1, $2, $3)",
            quote_ident(&self.schema)
        );
        let row = self
            .client
            .query_one(&statement, &[&origin, &first_sql, &records])
            .map_err(|error| records_refusal(error, origin))?;
        let stored: i64 = row.try_get(0)?;
        from_bigint(stored)
    }

    /// The checkpoint held for the log `origin`, if any was accepted.
    pub fn latest(&mut self, origin: &str) -> Result<Option<HeldCheckpoint>, FleetError> {
        let statement = format!(
            "SELECT size, root, note, floor(extract(epoch FROM updated_at))::bigint \
             FROM {}.seal_fleet_logs WHERE origin = $1",
            quote_ident(&self.schema)
        );
        let Some(row) = self.client.query_opt(&statement, &[&origin])? else {
            return Ok(None);
        };
        let size: i64 = row.try_get(0)?;
        let root: Vec<u8> = row.try_get(1)?;
        let root: [u8; 32] = root.try_into().map_err(|_| FleetError::Unexpected {
            what: "a held root that is not 32 bytes",
        })?;
        Ok(Some(HeldCheckpoint {
            size: from_bigint(size)?,
            root: MerkleHash::from_bytes(root),
            note: row.try_get(2)?,
            updated_unix_seconds: row.try_get(3)?,
        }))
    }

    /// The stored records of the log `origin` from index `first` on, at most `limit`, each
    /// with its index and the leaf hash the database computed.
    pub fn records(
        &mut self,
        origin: &str,
        first: u64,
        limit: u32,
    ) -> Result<Vec<StoredRecord>, FleetError> {
        let statement = format!(
            "SELECT idx, record, leaf FROM {}.seal_fleet_records \
             WHERE origin = $1 AND idx >= $2 ORDER BY idx LIMIT $3",
            quote_ident(&self.schema)
        );
        let rows = self.client.query(
            &statement,
            &[&origin, &to_bigint(first)?, &i64::from(limit)],
        )?;
        rows.iter()
            .map(|row| {
                let index: i64 = row.try_get(0)?;
                let leaf: Vec<u8> = row.try_get(2)?;
                let leaf: [u8; 32] = leaf.try_into().map_err(|_| FleetError::Unexpected {
                    what: "a stored leaf hash that is not 32 bytes",
                })?;
                Ok(StoredRecord {
                    index: from_bigint(index)?,
                    record: row.try_get(1)?,
                    leaf: MerkleHash::from_bytes(leaf),
                })
            })
            .collect()
    }

    /// The connection, for queries of the caller's own.
    pub fn client(&mut self) -> &mut Client {
        &mut self.client
    }
}

/// `name` as a quoted SQL identifier.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn to_bigint(value: u64) -> Result<i64, FleetError> {
    i64::try_from(value).map_err(|_| FleetError::OutOfRange { value })
}

fn from_bigint(value: i64) -> Result<u64, FleetError> {
    u64::try_from(value).map_err(|_| FleetError::Unexpected {
        what: "a negative size or index",
    })
}

#[cfg(test)]
mod tests {
    use super::quote_ident;

    #[test]
    fn identifiers_are_quoted_with_inner_quotes_doubled() {
        assert_eq!(quote_ident("fleet"), "\"fleet\"");
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
    }
}
