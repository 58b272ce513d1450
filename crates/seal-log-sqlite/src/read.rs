//! Reading the log: sizes, checkpoints, entries in order, and entries the query index selects.

use rusqlite::{params, OptionalExtension};

use crate::store::{to_i64, LogError, SqliteLog};

/// An entry as stored: position, record bytes and the leaf hash committed with them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// The position (the `idx` column).
    pub seq: u64,
    /// The record bytes.
    pub record: Vec<u8>,
    /// The stored leaf hash, as stored (any length).
    pub leaf: Vec<u8>,
}

/// Which entries `show` lists. Every field narrows; `None` admits all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EntryFilter {
    /// Only entries whose claimed time is at or after this (Unix seconds).
    pub since: Option<u64>,
    /// Only entries of this type (`hook/decision`, ...).
    pub kind: Option<String>,
    /// Only entries of this session (stored form).
    pub session: Option<String>,
    /// Only entries of this tool (stored form).
    pub tool: Option<String>,
    /// Only decisions of this kind (`allow`, `deny`, `ask`, `defer`).
    pub decision: Option<String>,
    /// Only entries whose deciding stage or rule contains this text (stored form).
    pub by: Option<String>,
    /// At most this many entries, the latest ones.
    pub limit: Option<u64>,
}

impl SqliteLog {
    /// The number of entries.
    pub fn size(&self) -> Result<u64, LogError> {
        // Read as `u64`: a negative number (which SQLite never counts) is an error, not zero.
        self.connection
            .query_row("SELECT count(*) FROM entry", [], |row| row.get::<_, u64>(0))
            .map_err(self.failed("count the entries"))
    }

    /// The checkpoint of the largest size stored, with its size.
    pub fn latest_checkpoint(&self) -> Result<Option<(u64, String)>, LogError> {
        self.connection
            .query_row(
                "SELECT size, note FROM checkpoint ORDER BY size DESC LIMIT 1",
                [],
                |row| Ok((row.get::<_, u64>(0)?, row.get::<_, String>(1)?)),
            )
            .optional()
            .map_err(self.failed("read the latest checkpoint"))
    }

    /// The checkpoint stored for `size`, if any.
    pub fn checkpoint(&self, size: u64) -> Result<Option<String>, LogError> {
        self.connection
            .query_row(
                "SELECT note FROM checkpoint WHERE size = ?1",
                params![to_i64(size)],
                |row| row.get(0),
            )
            .optional()
            .map_err(self.failed("read a checkpoint"))
    }

    /// Every stored checkpoint size, ascending.
    pub fn checkpoint_sizes(&self) -> Result<Vec<u64>, LogError> {
        let mut statement = self
            .connection
            .prepare("SELECT size FROM checkpoint ORDER BY size")
            .map_err(self.failed("list the checkpoints"))?;
        let rows = statement
            .query_map([], |row| row.get::<_, u64>(0))
            .map_err(self.failed("list the checkpoints"))?;
        let mut sizes = Vec::new();
        for row in rows {
            sizes.push(row.map_err(self.failed("list the checkpoints"))?);
        }
        Ok(sizes)
    }

    /// Calls `visit` with every stored entry in position order; stops at the first error
    /// `visit` returns.
    pub fn for_each_entry<E>(
        &self,
        mut visit: impl FnMut(StoredEntry) -> Result<(), E>,
    ) -> Result<Result<(), E>, LogError> {
        let mut statement = self
            .connection
            .prepare("SELECT idx, record, leaf FROM entry ORDER BY idx")
            .map_err(self.failed("read the entries"))?;
        let mut rows = statement
            .query([])
            .map_err(self.failed("read the entries"))?;
        while let Some(row) = rows.next().map_err(self.failed("read the entries"))? {
            // A negative stored position is an error, not a position.
            let entry = StoredEntry {
                seq: row.get(0).map_err(self.failed("read an entry"))?,
                record: row.get(1).map_err(self.failed("read an entry"))?,
                leaf: row.get(2).map_err(self.failed("read an entry"))?,
            };
            if let Err(error) = visit(entry) {
                return Ok(Err(error));
            }
        }
        Ok(Ok(()))
    }

    /// Calls `visit` with the position, record bytes and stored leaf of every entry in
    /// position order, borrowed from the row being read (nothing is copied); stops when
    /// `visit` returns `false`. The verifier's reading of a whole log.
    pub fn for_each_row(
        &self,
        mut visit: impl FnMut(u64, &[u8], &[u8]) -> bool,
    ) -> Result<(), LogError> {
        let mut statement = self
            .connection
            .prepare("SELECT idx, record, leaf FROM entry ORDER BY idx")
            .map_err(self.failed("read the entries"))?;
        let mut rows = statement
            .query([])
            .map_err(self.failed("read the entries"))?;
        while let Some(row) = rows.next().map_err(self.failed("read the entries"))? {
            // A negative stored position is an error, not a position.
            let seq: u64 = row.get(0).map_err(self.failed("read an entry"))?;
            let blob = |column| {
                row.get_ref(column)
                    .and_then(|value| value.as_blob().map_err(rusqlite::Error::from))
                    .map_err(self.failed("read an entry"))
            };
            if !visit(seq, blob(1)?, blob(2)?) {
                break;
            }
        }
        Ok(())
    }

    /// The entry at `seq`, if stored.
    pub fn entry(&self, seq: u64) -> Result<Option<StoredEntry>, LogError> {
        self.connection
            .query_row(
                "SELECT idx, record, leaf FROM entry WHERE idx = ?1",
                params![to_i64(seq)],
                |row| {
                    Ok(StoredEntry {
                        seq: row.get::<_, u64>(0)?,
                        record: row.get(1)?,
                        leaf: row.get(2)?,
                    })
                },
            )
            .optional()
            .map_err(self.failed("read an entry"))
    }

    /// The entries the query index lists for `filter`, in position order (the latest
    /// `filter.limit` when a limit is given). The index is derived: what it lists is read back
    /// from the entries themselves.
    pub fn select(&self, filter: &EntryFilter) -> Result<Vec<StoredEntry>, LogError> {
        let mut sql = String::from(
            "SELECT entry.idx, entry.record, entry.leaf FROM ev JOIN entry ON entry.idx = ev.idx WHERE 1",
        );
        let mut values: Vec<rusqlite::types::Value> = Vec::new();
        let mut narrow = |column: &str, value: rusqlite::types::Value| {
            values.push(value);
            sql.push_str(&format!(" AND ev.{column} = ?{}", values.len()));
        };
        if let Some(kind) = &filter.kind {
            narrow("type", kind.clone().into());
        }
        if let Some(session) = &filter.session {
            narrow("session", session.clone().into());
        }
        if let Some(tool) = &filter.tool {
            narrow("tool", tool.clone().into());
        }
        if let Some(decision) = &filter.decision {
            narrow("decision", decision.clone().into());
        }
        if let Some(by) = &filter.by {
            values.push(by.clone().into());
            sql.push_str(&format!(" AND instr(ev.by, ?{}) > 0", values.len()));
        }
        if let Some(since) = filter.since {
            values.push(to_i64(since).into());
            sql.push_str(&format!(" AND ev.time >= ?{}", values.len()));
        }
        sql.push_str(" ORDER BY ev.idx DESC");
        if let Some(limit) = filter.limit {
            values.push(to_i64(limit).into());
            sql.push_str(&format!(" LIMIT ?{}", values.len()));
        }
        let mut statement = self
            .connection
            .prepare(&sql)
            .map_err(self.failed("query the index"))?;
        let rows = statement
            .query_map(rusqlite::params_from_iter(values), |row| {
                Ok(StoredEntry {
                    seq: row.get::<_, u64>(0)?,
                    record: row.get(1)?,
                    leaf: row.get(2)?,
                })
            })
            .map_err(self.failed("query the index"))?;
        let mut entries = Vec::new();
        for row in rows {
            entries.push(row.map_err(self.failed("query the index"))?);
        }
        entries.reverse();
        Ok(entries)
    }
}
