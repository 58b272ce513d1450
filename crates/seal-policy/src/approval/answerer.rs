//! Answerers: the waterfall seam that a human UI, a web client or a machine reviewer occupies.

use super::request::Question;

/// What one answerer does with a question.
///
/// There is no durable grant: the strongest answer is [`Answer::AllowOnce`], which covers this
/// one request only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answer {
    /// Allow this one call.
    AllowOnce,
    /// Reject this call.
    Reject,
    /// Pass the question to the next answerer.
    Delegate,
    /// Claim the question and answer later (through
    /// [`ApprovalMachine::step`](super::ApprovalMachine::step) with an [`Event::Answer`](super::Event::Answer)):
    /// no later answerer is consulted.
    Pending,
}

/// An answerer in the waterfall. Answerers are consulted in registration order (prepended ones
/// first) until one does not delegate; they are never consulted under policy `never`, nor for a
/// request that is already cancelled.
pub trait Answerer {
    /// Answers, delegates or claims `question`.
    fn answer(&mut self, question: &Question<'_>) -> Answer;
}

/// A reply that settles a pending request: what a client or a claimed answerer may say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reply {
    /// Allow this one call (`allowed-once`).
    AllowOnce,
    /// Reject this call (`rejected`).
    Reject,
}

/// Boxes a closure as an answerer (the bound lets the closure's argument type be inferred).
pub fn answer_with<F>(answer: F) -> Box<dyn Answerer>
where
    F: FnMut(&Question<'_>) -> Answer + 'static,
{
    Box::new(answer)
}

impl<F> Answerer for F
where
    F: FnMut(&Question<'_>) -> Answer,
{
    fn answer(&mut self, question: &Question<'_>) -> Answer {
        self(question)
    }
}

impl Reply {
    /// The outcome this reply settles as.
    pub fn outcome(self) -> seal_record::Outcome {
        match self {
            Reply::AllowOnce => seal_record::Outcome::AllowedOnce,
            Reply::Reject => seal_record::Outcome::Rejected,
        }
    }
}
