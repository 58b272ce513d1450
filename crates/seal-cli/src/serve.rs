//! `seal serve`: runs the approval server (crate seal-serve) until SIGINT or SIGTERM;
//! `seal serve pair` asks the running server for a fresh pairing address over its socket.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::{Args, Subcommand};
use seal::log::{LogEvent, LogSigningKey};
use seal_log_sqlite::SqliteLog;
use seal_serve::hookwire::{HookLine, ServerLine};
use seal_serve::{DecisionLog, FleetStore, ServeConfig, TlsFiles, DEFAULT_LISTEN, STORE_NAME};

use crate::audit::sink::Signer;

use crate::failure::{Exit, Failure};

/// `seal serve`.
#[derive(Debug, Args)]
#[command(
    long_about = "Runs the approval server: hooks that wait for a person register on its Unix \
                  socket, and a browser panel on http://localhost:PORT/ answers them. The \
                  pairing address is printed once to stderr; `seal serve pair` prints a new \
                  one. Beyond loopback it needs --tls-cert and --tls-key (the panel then serves \
                  HTTPS only), at least one --trusted-host, and an approver already enrolled; \
                  the waiting hooks then take --approval-origin https://HOST[:PORT], the origin \
                  printed at start (its host is the first --trusted-host)."
)]
pub struct ServeArgs {
    /// Ask the running server for a new pairing address.
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
    /// The panel's address. Beyond loopback it needs --tls-cert, --tls-key, a --trusted-host and
    /// an enrolled approver.
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_LISTEN, global = true)]
    pub listen: SocketAddr,
    /// The panel's certificate chain (PEM, leaf first): the panel serves HTTPS only.
    #[arg(long, value_name = "PATH", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, value_name = "PATH", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// A DNS name the panel is reached by over TLS, lowercase, as the browser's address bar
    /// holds it (repeatable). The first is the security keys' relying party id and the host of
    /// the origin the hooks' --approval-origin must name.
    #[arg(long, value_name = "NAME", requires = "tls_cert")]
    pub trusted_host: Vec<String>,
    /// The hook socket (default $XDG_RUNTIME_DIR/seal/approvals.sock, else
    /// ~/.config/seal/serve/approvals.sock; the hooks read the same variable).
    #[arg(long, value_name = "PATH", env = "SEAL_APPROVAL_SOCKET", global = true)]
    pub socket: Option<PathBuf>,
    /// The store of pending approvals and tokens: an SQLite file (default approvals.db beside
    /// the socket, in the folder the self-protection guard covers), or redis://HOST:PORT/DB, a
    /// database shared by a fleet of servers (no password here: set SEAL_SERVE_STORE for that).
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<String>,
    /// The fleet's name, when several fleets share one Redis database (keys
    /// seal:approvals:NAME:...; only with a redis:// store).
    #[arg(long, value_name = "NAME")]
    pub fleet: Option<String>,
    /// The enrolled approvers (public keys; default ~/.config/seal/approvers.json, the file
    /// the waiting hooks read): once one is enrolled, every allow needs their security key.
    #[arg(long, value_name = "PATH", env = "SEAL_APPROVERS")]
    pub approvers: Option<PathBuf>,
    /// A panel token expires this many seconds after its last use.
    #[arg(long, value_name = "SECONDS", default_value_t = 43_200)]
    pub token_ttl: u64,
    /// The decision log to append approval/asked and approval/decided to (created with
    /// `seal audit init`).
    #[arg(long, value_name = "PATH", env = "SEAL_LOG")]
    pub log: Option<String>,
    /// The decision log's key file (default as for `seal audit`).
    #[arg(long, value_name = "PATH", env = "SEAL_LOG_KEY")]
    pub log_key: Option<String>,
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
    let (store, fleet) = store(args, &socket)?;
    let approvers = match &args.approvers {
        Some(path) => path.clone(),
        None => crate::approvers::default_approvers_path()
            .ok_or_else(|| Failure::usage("no --approvers given and HOME is not set"))?,
    };
    let approvers = seal_serve::approvers::Approvers::new(approvers)
        .ok_or_else(|| Failure::new(Exit::Internal, "no randomness for the enrolment secret"))?;
    let mut config = ServeConfig::new(socket, store);
    config.fleet = fleet;
    config.allow_check = Arc::new(approvers);
    config.listen = args.listen;
    if let (Some(cert_chain), Some(private_key)) = (&args.tls_cert, &args.tls_key) {
        config.tls = Some(TlsFiles {
            cert_chain: cert_chain.clone(),
            private_key: private_key.clone(),
        });
    }
    config.trusted_hosts.clone_from(&args.trusted_host);
    config.token_ttl = Duration::from_secs(args.token_ttl);
    if let Some(log) = &args.log {
        config.decision_log = Some(Arc::new(ServeLog::open(log, args.log_key.as_deref())?));
    }
    seal_serve::run(config).map_err(|error| Failure::new(Exit::Keys, error.to_string()))?;
    Ok(Exit::Ok.code())
}

/// The environment variable that may name the store, a password included.
const STORE_VARIABLE: &str = "SEAL_SERVE_STORE";

/// The SQLite path, and the fleet store when `--store` (or `SEAL_SERVE_STORE`) is a URL.
fn store(
    args: &ServeArgs,
    socket: &std::path::Path,
) -> Result<(PathBuf, Option<FleetStore>), Failure> {
    let given = match &args.store {
        Some(store) => {
            if crate::state::is_url(store) && crate::state::url_has_password(store) {
                return Err(Failure::usage(format!(
                    "--store: the Redis URL carries a password, which other users can read in \
                     the process list; set {STORE_VARIABLE} instead"
                )));
            }
            Some(store.clone())
        }
        None => std::env::var(STORE_VARIABLE)
            .ok()
            .filter(|store| !store.is_empty()),
    };
    let default_path = || {
        socket
            .parent()
            .map(|folder| folder.join(STORE_NAME))
            .ok_or_else(|| Failure::usage("the socket path has no folder for the store"))
    };
    match given {
        Some(url) if crate::state::is_url(&url) => {
            let mut fleet = FleetStore::new(crate::state::redis_address(&url)?);
            if let Some(name) = &args.fleet {
                FleetStore::check_fleet_name(name)
                    .map_err(|reason| Failure::usage(format!("--fleet: {reason}")))?;
                fleet.fleet = Some(name.clone());
            }
            Ok((default_path()?, Some(fleet)))
        }
        other => {
            if args.fleet.is_some() {
                return Err(Failure::usage(
                    "--fleet names a fleet in a shared Redis store: give --store redis://...",
                ));
            }
            match other {
                Some(path) => Ok((PathBuf::from(path), None)),
                None => Ok((default_path()?, None)),
            }
        }
    }
}

/// The decision log as the server's sink: each entry claims the time of its append.
struct ServeLog {
    log: Mutex<SqliteLog>,
    key: LogSigningKey,
}

impl ServeLog {
    fn open(log: &str, log_key: Option<&str>) -> Result<ServeLog, Failure> {
        let key = crate::audit::key::load(&crate::audit::key::key_path(log_key)?)?;
        let log = crate::audit::open(log)?;
        Ok(ServeLog {
            log: Mutex::new(log),
            key,
        })
    }
}

impl DecisionLog for ServeLog {
    fn record(&self, event: LogEvent) -> Result<(), String> {
        let time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|error| error.to_string())?
            .as_secs();
        let mut log = self
            .log
            .lock()
            .map_err(|_| "the log's lock was poisoned".to_owned())?;
        log.append(event, time, &Signer(&self.key))
            .map(|_| ())
            .map_err(|error| error.to_string())
    }
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
