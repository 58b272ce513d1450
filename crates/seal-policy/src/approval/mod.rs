//! The approval state machine, the approval wire registry and machine answerers.
