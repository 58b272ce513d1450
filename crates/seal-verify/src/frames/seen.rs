//! The embedder's record of ids already used (frame ids, approval ids).

use std::collections::{BTreeSet, HashSet};

/// Ids seen before: frame ids already accepted in this conversation, or approval ids already
/// spent. The embedder owns the set and records the ids a verifier returns; the verifier only
/// asks.
pub trait SeenIds {
    /// True when `id` was seen before.
    fn contains_id(&self, id: &str) -> bool;
}

impl SeenIds for HashSet<String> {
    fn contains_id(&self, id: &str) -> bool {
        self.contains(id)
    }
}

impl SeenIds for BTreeSet<String> {
    fn contains_id(&self, id: &str) -> bool {
        self.contains(id)
    }
}

impl<F: Fn(&str) -> bool> SeenIds for F {
    fn contains_id(&self, id: &str) -> bool {
        self(id)
    }
}

/// No id was ever seen (a fresh conversation).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoneSeen;

impl SeenIds for NoneSeen {
    fn contains_id(&self, _id: &str) -> bool {
        false
    }
}
