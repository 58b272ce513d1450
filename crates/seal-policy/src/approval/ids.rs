//! Approval ids: where fresh ids come from, and what an id may look like.

/// Longest approval, session or agent id accepted, in bytes (the record identifier limit).
pub const MAX_ID_BYTES: usize = seal_record::MAX_IDENTIFIER_BYTES;

/// A source of approval ids. Each call must return an id never returned before; the service
/// also refuses an id it has already issued, so a faulty source fails closed.
pub trait IdSource {
    /// The next id: 1 to [`MAX_ID_BYTES`] bytes of printable ASCII without space.
    fn next_id(&mut self) -> String;
}

/// The default id source: `approval-1`, `approval-2`, ... (the counter saturates at
/// `u64::MAX`, after which the service refuses the repeated id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterIds {
    prefix: String,
    next: u64,
}

impl CounterIds {
    /// Ids `<prefix>1`, `<prefix>2`, ...
    pub fn new(prefix: &str) -> CounterIds {
        CounterIds {
            prefix: prefix.to_owned(),
            next: 1,
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
        let id = format!("{}{}", self.prefix, self.next);
        self.next = self.next.saturating_add(1);
        id
    }
}

/// True for an id (approval, session, agent, call): 1 to [`MAX_ID_BYTES`] bytes of printable
/// ASCII without space (0x21..=0x7E), the record identifier rule.
pub fn is_id(text: &str) -> bool {
    seal_record::is_identifier(text, MAX_ID_BYTES)
}
