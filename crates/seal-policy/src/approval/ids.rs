//! Approval ids: where fresh ids come from, and what an id may look like.

use std::sync::atomic::{AtomicU64, Ordering};

/// Longest approval, session or agent id accepted, in bytes (the record identifier limit).
pub const MAX_ID_BYTES: usize = seal_record::MAX_IDENTIFIER_BYTES;

/// A source of approval ids. Each call must return an id never returned before; the service
/// also refuses an id it has already issued, so a faulty source fails closed.
pub trait IdSource {
    /// The next id: 1 to [`MAX_ID_BYTES`] bytes of printable ASCII without space.
    fn next_id(&mut self) -> String;
}

/// The one source of approval ids, for the approval service and the facade's pipeline alike:
/// `approval-1`, `approval-2`, ... The counter saturates at `u64::MAX`, after which the same id
/// repeats, and whoever records it refuses the repeat (fail closed).
#[derive(Debug)]
pub struct CounterIds {
    prefix: String,
    issued: AtomicU64,
}

impl CounterIds {
    /// Ids `<prefix>1`, `<prefix>2`, ...
    pub fn new(prefix: &str) -> CounterIds {
        CounterIds {
            prefix: prefix.to_owned(),
            issued: AtomicU64::new(0),
        }
    }

    /// The next id, through a shared reference (calls may be prepared concurrently): each call
    /// gets a number of its own until the counter saturates.
    pub fn issue(&self) -> String {
        let previous = self
            .issued
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_add(1))
            })
            .unwrap_or_else(|previous| previous);
        format!("{}{}", self.prefix, previous.saturating_add(1))
    }
}

impl Clone for CounterIds {
    /// A source that goes on from where this one is.
    fn clone(&self) -> CounterIds {
        CounterIds {
            prefix: self.prefix.clone(),
            issued: AtomicU64::new(self.issued.load(Ordering::Relaxed)),
        }
    }
}

impl Default for CounterIds {
    fn default() -> Self {
        CounterIds::new("approval-")
    }
}

impl IdSource for CounterIds {
    fn next_id(&mut self) -> String {
        self.issue()
    }
}

/// True for an id (approval, session, agent, call): 1 to [`MAX_ID_BYTES`] bytes of printable
/// ASCII without space (0x21..=0x7E), the record identifier rule.
pub fn is_id(text: &str) -> bool {
    seal_record::is_identifier(text, MAX_ID_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_count_from_one_and_saturate() {
        let ids = CounterIds::new("a-");
        assert_eq!(
            (ids.issue(), ids.issue()),
            ("a-1".to_owned(), "a-2".to_owned())
        );
        let mut copy = ids.clone();
        assert_eq!(copy.next_id(), "a-3");
        assert_eq!(ids.issue(), "a-3");
        let full = CounterIds {
            prefix: "a-".to_owned(),
            issued: AtomicU64::new(u64::MAX - 1),
        };
        assert_eq!(full.issue(), format!("a-{}", u64::MAX));
        assert_eq!(full.issue(), format!("a-{}", u64::MAX));
    }
}
