//! The paths an `apply_patch` call touches (spec/apply-patch.md): only the file headers are
//! read, and every path is kept exactly as written, so a hook decides each one with the rules.
//!
//! These are the core reader's own items, re-exported as they are.
//!
//! ```
//! use seal::patch::{Operation, Patch, PatchLimits};
//!
//! let text = b"*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n";
//! let patch = Patch::parse(text, &PatchLimits::default())?;
//! let paths: Vec<_> = patch.paths().iter().map(|touched| (touched.operation, touched.path)).collect();
//! assert_eq!(paths, [(Operation::Add, "notes.txt")]);
//! # Ok::<(), seal::patch::PatchError>(())
//! ```

pub use seal_parse::patch::{Operation, Patch, PatchError, PatchLimits, TouchedPath};
