//! `seal serve`: runs the approval server (crate seal-serve) until SIGINT or SIGTERM;
//! `seal serve pair` asks the running server for a fresh pairing address over its socket.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use seal_serve::hookwire::{HookLine, ServerLine};
use seal_serve::{ServeConfig, DEFAULT_LISTEN};

use crate::failure::{Exit, Failure};

/// `seal serve`.
#[derive(Debug, Args)]
#[command(
    long_about = "Runs the approval server: hooks that wait for a person register on its Unix \
                  socket, and a browser panel on http://localhost:PORT/ answers them. The \
                  pairing address is printed once to stderr; `seal serve pair` prints a new \
                  one. Listens on loopback only (TLS is not built yet)."
)]
pub struct ServeArgs {
    /// Ask the running server for a new pairing address.
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
    /// The panel's address (loopback only).
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_LISTEN, global = true)]
    pub listen: SocketAddr,
    /// The hook socket (default $XDG_RUNTIME_DIR/seal/approvals.sock).
    #[arg(long, value_name = "PATH", env = "SEAL_SERVE_SOCKET", global = true)]
    pub socket: Option<PathBuf>,
    /// The SQLite store of pending approvals and tokens (default
    /// $XDG_STATE_HOME/seal/approvals.db).
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// A panel token expires this many seconds after its last use.
    #[arg(long, value_name = "SECONDS", default_value_t = 43_200)]
    pub token_ttl: u64,
    /// The decision log to append approval/asked and approval/decided to (not yet written).
    #[arg(long, value_name = "PATH", requires = "log_key")]
    pub log: Option<PathBuf>,
    /// The decision log's key file.
    #[arg(long, value_name = "PATH", requires = "log")]
    pub log_key: Option<PathBuf>,
}

/// `seal serve` subcommands.
#[derive(Debug, Subcommand)]
pub enum ServeCommand {
    /// Print a new single-use pairing address from the running server.
    Pair,
}

/// Runs `seal serve` or `seal serve pair`.
pub fn run(args: &ServeArgs) -> Result<u8, Failure> {
    let socket = match &args.socket {
        Some(socket) => socket.clone(),
        None => ServeConfig::default_socket().ok_or_else(|| {
            Failure::usage("no --socket given and neither XDG_RUNTIME_DIR nor HOME is set")
        })?,
    };
    if let Some(ServeCommand::Pair) = args.command {
        return pair(&socket);
    }
    if args.log.is_some() {
        return Err(Failure::usage(
            "--log is not supported by `seal serve` yet: run it without a decision log",
        ));
    }
    let store = match &args.store {
        Some(store) => store.clone(),
        None => ServeConfig::default_store().ok_or_else(|| {
            Failure::usage("no --store given and neither XDG_STATE_HOME nor HOME is set")
        })?,
    };
    let mut config = ServeConfig::new(socket, store);
    config.listen = args.listen;
    config.token_ttl = Duration::from_secs(args.token_ttl);
    seal_serve::run(config).map_err(|error| Failure::new(Exit::Keys, error.to_string()))?;
    Ok(Exit::Ok.code())
}

fn pair(socket: &std::path::Path) -> Result<u8, Failure> {
    match seal_serve::client::request(socket, &HookLine::Pair) {
        Ok(ServerLine::Pairing { url }) => {
            outln!("{url}");
            Ok(Exit::Ok.code())
        }
        Ok(ServerLine::Refused { reason, message }) => Err(Failure::new(
            Exit::Keys,
            format!("the approval server refused ({reason}): {message}"),
        )),
        Ok(other) => Err(Failure::new(
            Exit::Internal,
            format!("the approval server answered {other:?}"),
        )),
        Err(error) => Err(Failure::new(Exit::Keys, error.to_string())),
    }
}
