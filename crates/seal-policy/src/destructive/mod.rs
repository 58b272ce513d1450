//! The destructive-command guard: a deny-only check of shell commands against a table of
//! destructive uses of programs (recursive or forced deletion outside the workspace, git
//! history and worktree destruction, disk and file-system destruction, mass permission
//! changes, fork bombs), path-aware, so that the same programs run freely inside the workspace
//! and the temporary directories (spec/destructive-guard.md).
//!
//! It reads every segment of a command in every normalized form (wrappers such as `sudo`,
//! `env`, `timeout` and `xargs` stripped, basenames, `bash -c` payloads), modelled programs
//! through their models (git's global options, abbreviations and clusters), program names
//! ignoring ASCII case, and the commands `find -exec`, `parallel` and `watch` run. A command
//! seal cannot segment is checked for fork bombs and writes to devices only; the rules never
//! allow such a command anyway.
//!
//! ```
//! use seal_policy::destructive::DestructiveGuard;
//!
//! let guard = DestructiveGuard::new()
//!     .with_workspace_root("/home/dev/project")
//!     .with_home_dir("/home/dev");
//! assert!(guard.check_command("rm -rf build /tmp/cache").is_none());
//! let found = guard.check_command("sudo rm -r -f ~/").unwrap();
//! assert_eq!(found.pattern.id, "rm-outside-workspace");
//! assert_eq!(found.path.as_deref(), Some("/home/dev"));
//! let found = guard.check_command("git -C . reset --ha").unwrap();
//! assert_eq!(found.pattern.id, "git-reset-hard");
//! ```

mod finding;
mod forms;
#[cfg(feature = "fuzz")]
pub mod fuzz_check;
mod guard;
mod places;
mod reading;
mod table;
mod text;

pub use finding::{GuardExplanation, GuardFinding, GuardForm};
pub use forms::MAX_PAYLOAD_DEPTH;
pub use guard::DestructiveGuard;
pub use places::{SYSTEM_DIRS, TEMP_DIRS};
pub use table::{Operands, Pattern, Reach, PATTERNS, SAFE_DEVICES, SOURCE_DEVICES};
pub use text::{DEVICE_REDIRECT, FORK_BOMB, MAX_FORK_BODY_BYTES, MAX_REDIRECT_TARGET_BYTES};
