//! Permission rules in the syntax agents already use, matched per shell segment.
