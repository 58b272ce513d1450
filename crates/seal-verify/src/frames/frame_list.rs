//! The list of a report's findings, held inline while it has at most one entry: a message with
//! one frame (the usual case) costs no allocation for it.

use std::fmt;

use super::report::FrameReport;

/// Findings with their outcomes, in document order: inline up to one, on the heap beyond.
// The inline variant is large on purpose: holding one finding in place is what saves the
// allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum FrameList<'t> {
    /// No finding, or one.
    Inline(Option<FrameReport<'t>>),
    /// Any number.
    Heap(Vec<FrameReport<'t>>),
}

impl<'t> FrameList<'t> {
    /// An empty list with room for `capacity` findings (inline when that is at most one).
    pub(crate) fn with_capacity(capacity: usize) -> FrameList<'t> {
        if capacity <= 1 {
            FrameList::Inline(None)
        } else {
            FrameList::Heap(Vec::with_capacity(capacity))
        }
    }

    /// Appends `frame`.
    pub(crate) fn push(&mut self, frame: FrameReport<'t>) {
        match self {
            FrameList::Inline(slot @ None) => *slot = Some(frame),
            FrameList::Inline(Some(_)) => {
                let first = match std::mem::replace(self, FrameList::Heap(Vec::new())) {
                    FrameList::Inline(first) => first,
                    FrameList::Heap(_) => None,
                };
                let mut all = Vec::with_capacity(4);
                all.extend(first);
                all.push(frame);
                *self = FrameList::Heap(all);
            }
            FrameList::Heap(all) => all.push(frame),
        }
    }

    /// The findings, in order.
    pub(crate) fn as_slice(&self) -> &[FrameReport<'t>] {
        match self {
            FrameList::Inline(Some(frame)) => std::slice::from_ref(frame),
            FrameList::Inline(None) => &[],
            FrameList::Heap(all) => all,
        }
    }
}

impl fmt::Debug for FrameList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use seal_parse::frame::Span;

    use super::*;
    use crate::frames::report::{AlarmReason, Cause, Outcome};

    fn report(depth: usize) -> FrameReport<'static> {
        FrameReport {
            tag: Span { start: 0, end: 1 },
            depth,
            source: None,
            frame_id: None,
            key_id: None,
            outcome: Outcome::Untrusted {
                reason: AlarmReason::UnsignedFrame,
                cause: Cause::NoSignature,
            },
        }
    }

    /// Pushed findings read back in order, whatever the capacity asked for.
    #[test]
    fn findings_read_back_in_order_inline_and_on_the_heap() {
        for capacity in [0, 1, 2, 5] {
            let mut list = FrameList::with_capacity(capacity);
            for depth in 0..6 {
                let depths: Vec<usize> = list.as_slice().iter().map(|f| f.depth).collect();
                assert_eq!(depths, (0..depth).collect::<Vec<_>>(), "{capacity}");
                list.push(report(depth));
            }
            assert_eq!(format!("{list:?}"), format!("{:?}", list.as_slice()));
        }
    }
}
