//! Wire names of settle causes (spec/approval-server.md, "The hook socket protocol").

use seal_policy::approval::{CancelCause, SettleCause};

/// The settle cause's wire name.
pub(crate) fn cause_name(cause: SettleCause) -> &'static str {
    match cause {
        SettleCause::Answered => "answered",
        SettleCause::MachineAnswered => "machine-answered",
        SettleCause::Cancelled(CancelCause::Aborted) => "aborted",
        SettleCause::Cancelled(CancelCause::HookGone) => "hook-gone",
        SettleCause::Cancelled(CancelCause::AnsweredElsewhere) => "answered-elsewhere",
        SettleCause::Cancelled(CancelCause::MachineCancelled) => "machine-cancelled",
        SettleCause::Timeout => "timeout",
        SettleCause::Unavailable => "unavailable",
        SettleCause::Shutdown => "shutdown",
    }
}

/// The settle cause named `name`.
pub(crate) fn cause_of(name: &str) -> Option<SettleCause> {
    Some(match name {
        "answered" => SettleCause::Answered,
        "machine-answered" => SettleCause::MachineAnswered,
        "aborted" => SettleCause::Cancelled(CancelCause::Aborted),
        "hook-gone" => SettleCause::Cancelled(CancelCause::HookGone),
        "answered-elsewhere" => SettleCause::Cancelled(CancelCause::AnsweredElsewhere),
        "machine-cancelled" => SettleCause::Cancelled(CancelCause::MachineCancelled),
        "timeout" => SettleCause::Timeout,
        "unavailable" => SettleCause::Unavailable,
        "shutdown" => SettleCause::Shutdown,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::{cause_name, cause_of};
    use seal_policy::approval::{CancelCause, SettleCause};

    #[test]
    fn names_round_trip() {
        let all = [
            SettleCause::Answered,
            SettleCause::MachineAnswered,
            SettleCause::Cancelled(CancelCause::Aborted),
            SettleCause::Cancelled(CancelCause::HookGone),
            SettleCause::Cancelled(CancelCause::AnsweredElsewhere),
            SettleCause::Cancelled(CancelCause::MachineCancelled),
            SettleCause::Timeout,
            SettleCause::Unavailable,
            SettleCause::Shutdown,
        ];
        for cause in all {
            assert_eq!(cause_of(cause_name(cause)), Some(cause));
        }
        assert_eq!(cause_of("Answered"), None);
    }
}
