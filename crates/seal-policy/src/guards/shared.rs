//! One path guard registered as both its first listener and its global guard: the two stages
//! share the guard and the last call it read, so a call the listener passed is not read again
//! by the guard (the finding depends only on the tool, the arguments and the guard, which the
//! stages share; a different call is read afresh).

use std::sync::{Arc, Mutex, PoisonError};

use crate::chain::{Because, Check, Decision, Guard, Listener, Next, Ruling, StageError, ToolCall};

/// What a path guard does with a call.
pub(crate) trait CallCheck: Send + Sync + 'static {
    /// What it finds.
    type Finding: Clone + Send + Sync + 'static;

    /// The first finding on `call`, if any.
    fn check(&self, call: &ToolCall) -> Option<Self::Finding>;

    /// The reason and the explanation of a refusal for `found`.
    fn refusal(found: &Self::Finding) -> (String, Because);
}

/// The last call read: its tool, its arguments and the finding.
type Last<F> = Option<(String, String, Option<F>)>;

/// A path guard shared by its listener and its global guard (clones share the guard and the
/// last call).
pub(crate) struct Shared<G: CallCheck> {
    inner: Arc<(G, Mutex<Last<G::Finding>>)>,
}

impl<G: CallCheck> Clone for Shared<G> {
    fn clone(&self) -> Self {
        Shared {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<G: CallCheck> Shared<G> {
    pub(crate) fn new(guard: G) -> Shared<G> {
        Shared {
            inner: Arc::new((guard, Mutex::new(None))),
        }
    }

    /// The finding on `call`: the one remembered when `call` is the last call read (same tool,
    /// same arguments), else read now and remembered.
    fn finding(&self, call: &ToolCall) -> Option<G::Finding> {
        let (guard, last) = &*self.inner;
        {
            let last = last.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((tool, arguments, found)) = &*last {
                if tool == call.tool() && arguments == call.arguments_json() {
                    return found.clone();
                }
            }
        }
        let found = guard.check(call);
        let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
        *last = Some((
            call.tool().to_owned(),
            call.arguments_json().to_owned(),
            found.clone(),
        ));
        found
    }
}

/// As a guard: denies a call the guard finds something in (only after an allow, as every
/// guard).
impl<G: CallCheck> Guard for Shared<G> {
    fn check(&self, call: &ToolCall) -> Result<Check, StageError> {
        let Some(found) = self.finding(call) else {
            return Ok(Check::Pass);
        };
        let (reason, because) = G::refusal(&found);
        Ok(Check::Deny {
            reason: reason.into(),
            because: Some(because),
        })
    }
}

/// As a listener placed first: denies a call the guard finds something in before any rule can
/// ask about it (so no approval lets it through), and hands every other call on.
impl<G: CallCheck> Listener for Shared<G> {
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        match self.finding(call) {
            Some(found) => {
                let (reason, because) = G::refusal(&found);
                Ok(Ruling::new(Decision::deny(reason)).because(because))
            }
            None => Ok(next.run()),
        }
    }
}
