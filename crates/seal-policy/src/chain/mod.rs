//! Decisions, tool calls, the pre-execute waterfall of listeners, deny-only guards and the explanation trace.
