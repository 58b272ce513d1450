//! What an evaluation's caller asks its stages to record, what they record, and the storage a
//! stage reuses from one evaluation to the next: carried by the trace without the chain knowing
//! their types (the rules listener's reading and its segment buffer are the rules' own).

use std::any::Any;
use std::fmt;

/// A value a stage records in the trace, or a caller's request for one: any `'static` type that
/// can be cloned, compared and shown. Implemented for every such type.
pub trait Note: Any + fmt::Debug + Send + Sync {
    /// A boxed copy.
    fn clone_note(&self) -> Box<dyn Note>;

    /// Whether `other` is a note of the same type and equal to this one.
    fn eq_note(&self, other: &dyn Note) -> bool;

    /// The note as `Any`, to read it back as its own type.
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any + fmt::Debug + Clone + PartialEq + Send + Sync> Note for T {
    fn clone_note(&self) -> Box<dyn Note> {
        Box::new(self.clone())
    }

    fn eq_note(&self, other: &dyn Note) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Notes of distinct types, at most one of each (boxed when there are any, so that a trace
/// without notes stays small to move, and clearing keeps the room).
#[derive(Debug, Default)]
// The box keeps the field one pointer wide in every trace; it is made only when a note is.
#[allow(clippy::box_collection)]
pub(crate) struct Notes(Option<Box<Vec<Box<dyn Note>>>>);

impl Notes {
    fn all(&self) -> &[Box<dyn Note>] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    /// The note of type `T`, if one is held.
    pub(crate) fn get<T: Any>(&self) -> Option<&T> {
        (self.all().iter()).find_map(|note| note.as_any().downcast_ref::<T>())
    }

    /// Holds `note`, in place of a note of the same type.
    pub(crate) fn put<T: Note>(&mut self, note: T) {
        let held = self.0.get_or_insert_with(Box::default);
        held.retain(|held| !held.as_any().is::<T>());
        held.push(Box::new(note));
    }

    pub(crate) fn clear(&mut self) {
        if let Some(held) = &mut self.0 {
            held.clear();
        }
    }
}

impl Clone for Notes {
    fn clone(&self) -> Notes {
        match self.all() {
            [] => Notes(None),
            all => Notes(Some(Box::new(
                all.iter().map(|note| note.clone_note()).collect(),
            ))),
        }
    }
}

impl PartialEq for Notes {
    /// The same notes, in any order.
    fn eq(&self, other: &Notes) -> bool {
        let (mine, theirs) = (self.all(), other.all());
        mine.len() == theirs.len()
            && mine
                .iter()
                .all(|note| theirs.iter().any(|held| note.eq_note(held.as_ref())))
    }
}

impl Eq for Notes {}

/// Storage a stage keeps in the trace from one evaluation to the next (one value, of the
/// stage's own type): never part of what a trace says. A clone starts empty, and every two
/// compare equal. (Boxed twice so that the slot is one pointer wide.)
#[derive(Default)]
pub(crate) struct Scratch(Option<Box<Box<dyn Any + Send + Sync>>>);

impl Scratch {
    /// The storage of type `T`, made with `T::default()` at the first use (or when the storage
    /// held is of another type). `None` only if a value just made of `T` did not read back as
    /// `T`, which cannot happen; a caller then works in storage of its own.
    pub(crate) fn get<T: Any + Default + Send + Sync>(&mut self) -> Option<&mut T> {
        if !self.0.as_ref().is_some_and(|held| held.is::<T>()) {
            self.0 = Some(Box::new(Box::new(T::default())));
        }
        self.0.as_mut().and_then(|held| held.downcast_mut::<T>())
    }
}

impl Clone for Scratch {
    fn clone(&self) -> Scratch {
        Scratch(None)
    }
}

impl PartialEq for Scratch {
    fn eq(&self, _: &Scratch) -> bool {
        true
    }
}

impl Eq for Scratch {}

impl fmt::Debug for Scratch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Scratch")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct A(u8);

    #[derive(Debug, Clone, PartialEq)]
    struct B(&'static str);

    #[test]
    fn notes_hold_one_of_each_type_and_compare_by_value() {
        let mut notes = Notes::default();
        notes.put(A(1));
        notes.put(B("x"));
        notes.put(A(2));
        assert_eq!(notes.get::<A>(), Some(&A(2)));
        assert_eq!(notes.get::<B>(), Some(&B("x")));
        let copy = notes.clone();
        assert_eq!(copy, notes);
        let mut other = Notes::default();
        other.put(B("x"));
        other.put(A(3));
        assert_ne!(other, notes);
        notes.clear();
        assert!(notes.get::<A>().is_none() && notes == Notes::default());
    }

    #[test]
    fn scratch_is_kept_for_its_type_and_never_compared() {
        let mut scratch = Scratch::default();
        if let Some(held) = scratch.get::<Vec<u8>>() {
            held.push(7);
        }
        assert_eq!(scratch.get::<Vec<u8>>(), Some(&mut vec![7]));
        assert_eq!(scratch.get::<String>().map(|held| held.len()), Some(0));
        assert_eq!(scratch.get::<Vec<u8>>(), Some(&mut Vec::new()));
        assert!(scratch.clone().0.is_none());
    }
}
