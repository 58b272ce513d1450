//! Where `seal serve` and the hooks meet by default.

use std::path::PathBuf;

/// The hook socket's file name.
pub const SOCKET_NAME: &str = "approvals.sock";

/// The default hook socket: `$XDG_RUNTIME_DIR/seal/approvals.sock` when `XDG_RUNTIME_DIR` is an
/// absolute path, else `$HOME/.config/seal/serve/approvals.sock`; `None` when neither is set.
pub fn default_socket() -> Option<PathBuf> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    if let Some(runtime) = absolute("XDG_RUNTIME_DIR") {
        return Some(runtime.join("seal").join(SOCKET_NAME));
    }
    absolute("HOME").map(|home| {
        home.join(".config")
            .join("seal")
            .join("serve")
            .join(SOCKET_NAME)
    })
}
