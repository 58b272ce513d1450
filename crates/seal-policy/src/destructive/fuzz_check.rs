//! Fuzz entry point for the destructive-command guard, shared by the cargo-fuzz target
//! `destructive_guard` and the corpus replay test.

use super::{DestructiveGuard, DEVICE_REDIRECT, FORK_BOMB, PATTERNS};

/// Checks the guard on `data` read as a command (invalid UTF-8 replaced), with and without a
/// workspace: no panic; the same answer twice; a finding names a pattern of the table or a
/// text pattern, a form that is not empty, and a path exactly when it says what the path is;
/// a command the guard refuses is refused in a `bash -c` payload and after `sudo` too.
///
/// # Errors
///
/// A sentence naming the violated property.
pub fn destructive_guard(data: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(data);
    let guards = [
        DestructiveGuard::new(),
        DestructiveGuard::new()
            .with_workspace_root("/home/dev/project")
            .with_home_dir("/home/dev"),
    ];
    for guard in &guards {
        let found = guard.check_command(&text);
        if found != guard.check_command(&text) {
            return Err(format!("two answers for {text:?}"));
        }
        let Some(found) = found else {
            continue;
        };
        let known = PATTERNS.iter().any(|p| p.id == found.pattern.id)
            || [FORK_BOMB.id, DEVICE_REDIRECT.id].contains(&found.pattern.id);
        if !known {
            return Err(format!("unknown pattern {}", found.pattern.id));
        }
        if found.form.is_empty() || found.path.is_some() != found.place.is_some() {
            return Err(format!("finding without its form or place: {found:?}"));
        }
        let _ = found.to_string();
        // A plain word command (no quotes, no operators) keeps its meaning behind `sudo`.
        let plain = text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b" -_./~=+:".contains(&b));
        if plain && !text.trim().is_empty() {
            for wrapped in [format!("sudo {text}"), format!("bash -c '{text}'")] {
                if guard.check_command(&wrapped).is_none() {
                    return Err(format!("{text:?} is refused but not {wrapped:?}"));
                }
            }
        }
    }
    Ok(())
}
