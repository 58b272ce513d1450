//! Starting and stopping the server: the listeners, the store, the runtime and the ticker.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use seal_policy::approval::trust::{PanelScheme, RequestTrust, RequestTrustError};
use seal_policy::approval::{ApprovalBook, BookLimits, EntryError};

use crate::check::{AllowCheck, NoApprovers};
use crate::frames::NO_APPROVER_WARNING;
use crate::log::DecisionLog;
use crate::redis_store::{FleetStore, RedisBookStore};
use crate::state::{blocking, Restored, Shared};
use crate::store::{ApprovalStoreError, BookStore, Store};
use crate::tls::{TlsError, TlsFiles, TlsListener};

/// The default panel address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7979";

/// The default idle expiry of a panel token: 12 hours.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(43_200);

/// How often pending entries are checked against their deadlines.
pub const TICK: Duration = Duration::from_millis(200);

/// Most approvals pending at once.
pub const MAX_PENDING: usize = 1024;

/// The store's file name in the default folder.
pub const STORE_NAME: &str = "approvals.db";

/// The names a panel on loopback answers to.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The open API path (no bearer token): the pairing exchange.
pub const PAIR_PATH: &str = "/api/pair";

/// How `seal serve` runs.
pub struct ServeConfig {
    /// The panel's listener. Port 0 picks a free port. Beyond loopback it needs `tls`, an
    /// enrolled approver and a trusted host (spec/approval-server.md, "Beyond loopback").
    pub listen: SocketAddr,
    /// The panel's certificate and key: with them the panel serves HTTPS only.
    pub tls: Option<TlsFiles>,
    /// The DNS names the panel is reached by over TLS, lowercase, as a browser writes them in
    /// `Host` (port apart). The first is the WebAuthn relying party id and the origin's host.
    /// On loopback the loopback names are trusted after them.
    pub trusted_hosts: Vec<String>,
    /// The hook socket's path.
    pub socket: PathBuf,
    /// The SQLite store's path (unused when [`ServeConfig::fleet`] is set).
    pub store: PathBuf,
    /// A Redis database shared by a fleet of servers, instead of the SQLite store.
    pub fleet: Option<FleetStore>,
    /// A panel token expires this long after its last use.
    pub token_ttl: Duration,
    /// Checks the assertion of an allow ([`NoApprovers`] until WebAuthn enrolment exists).
    pub allow_check: Arc<dyn AllowCheck>,
    /// Print the pairing address to stderr at start.
    pub announce: bool,
    /// Where `approval/asked` and `approval/decided` are recorded, if anywhere.
    pub decision_log: Option<Arc<dyn DecisionLog>>,
}

impl ServeConfig {
    /// A configuration with the defaults: `127.0.0.1:7979`, a 12-hour token expiry, no
    /// approvers, the pairing address printed.
    #[must_use]
    pub fn new(socket: PathBuf, store: PathBuf) -> ServeConfig {
        ServeConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 7979)),
            tls: None,
            trusted_hosts: Vec::new(),
            socket,
            store,
            fleet: None,
            token_ttl: DEFAULT_TOKEN_TTL,
            allow_check: Arc::new(NoApprovers),
            announce: true,
            decision_log: None,
        }
    }

    /// The hooks' default socket ([`crate::paths::default_socket`]).
    #[must_use]
    pub fn default_socket() -> Option<PathBuf> {
        crate::paths::default_socket()
    }

    /// `approvals.db` beside the default socket: the folder the self-protection guard keeps
    /// agents from writing (a store an agent could rewrite could hold its own token).
    #[must_use]
    pub fn default_store() -> Option<PathBuf> {
        let socket = crate::paths::default_socket()?;
        Some(socket.parent()?.join(STORE_NAME))
    }
}

/// Why the server could not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The panel address is outside loopback and no certificate was given.
    NotLoopback {
        /// The address given.
        listen: SocketAddr,
    },
    /// The panel address is outside loopback and no approver is enrolled.
    NoApprover {
        /// The address given.
        listen: SocketAddr,
    },
    /// The panel address is outside loopback and no trusted host was given.
    NoTrustedHost {
        /// The address given.
        listen: SocketAddr,
    },
    /// A trusted host was given without a certificate.
    TrustedHostWithoutTls {
        /// The first host given.
        host: String,
    },
    /// A trusted host is an IP address: a WebAuthn relying party id is a domain name.
    TrustedHostIsAddress {
        /// The host given.
        host: String,
    },
    /// The certificate or key could not be loaded.
    Tls(TlsError),
    /// Another server answers on the hook socket.
    AlreadyRunning {
        /// The socket.
        socket: PathBuf,
    },
    /// The hook socket's path is held by something that is not a socket, or its directory is
    /// writable by other users.
    UnsafePath {
        /// The path.
        path: PathBuf,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An IO operation failed.
    Io {
        /// What was being done.
        action: String,
        /// The error.
        error: std::io::Error,
    },
    /// The store could not be opened or read.
    Store(ApprovalStoreError),
    /// The store holds a book that does not rebuild.
    Rebuild(EntryError),
    /// The trust configuration could not be built.
    Trust(RequestTrustError),
    /// The system's random generator failed.
    Random,
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::NotLoopback { listen } => write!(
                f,
                "`{listen}` is not a loopback address: beyond loopback the panel needs TLS \
                 (--tls-cert and --tls-key); plain HTTP listens on 127.0.0.1 or [::1] only"
            ),
            ServeError::NoApprover { listen } => write!(
                f,
                "`{listen}` is not a loopback address and no approver is enrolled in the \
                 approvers file: beyond loopback every allow needs a security key, so enrol one \
                 first on a loopback panel"
            ),
            ServeError::NoTrustedHost { listen } => write!(
                f,
                "`{listen}` is not a loopback address and no --trusted-host was given: name the \
                 DNS name the panel is reached by"
            ),
            ServeError::TrustedHostWithoutTls { host } => write!(
                f,
                "--trusted-host `{}` needs TLS (--tls-cert and --tls-key): a plain HTTP panel \
                 answers to the loopback names only",
                host.escape_debug()
            ),
            ServeError::TrustedHostIsAddress { host } => write!(
                f,
                "--trusted-host `{}` is an IP address: name the panel by a DNS name (a WebAuthn \
                 relying party id is a domain)",
                host.escape_debug()
            ),
            ServeError::Tls(error) => write!(f, "TLS: {error}"),
            ServeError::AlreadyRunning { socket } => write!(
                f,
                "an approval server is already running on `{}`",
                socket.display()
            ),
            ServeError::UnsafePath { path, reason } => {
                write!(f, "`{}` {reason}", path.display())
            }
            ServeError::Io { action, error } => write!(f, "{action}: {error}"),
            ServeError::Store(error) => write!(f, "the approval store: {error}"),
            ServeError::Rebuild(error) => {
                write!(f, "the approval store holds an invalid book: {error}")
            }
            ServeError::Trust(error) => write!(f, "the panel's trust configuration: {error}"),
            ServeError::Random => f.write_str("the system's random generator failed"),
        }
    }
}

impl std::error::Error for ServeError {}

fn io(action: impl Into<String>) -> impl FnOnce(std::io::Error) -> ServeError {
    let action = action.into();
    move |error| ServeError::Io { action, error }
}

/// A server running on its own runtime. Dropping it shuts it down as
/// [`RunningServer::shutdown`] does.
pub struct RunningServer {
    runtime: Option<tokio::runtime::Runtime>,
    shared: Arc<Shared>,
    port: u16,
    socket: PathBuf,
    pairing_url: String,
}

impl fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunningServer")
            .field("port", &self.port)
            .field("socket", &self.socket)
            .finish_non_exhaustive()
    }
}

impl RunningServer {
    /// The panel's port.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The hook socket's path.
    #[must_use]
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The pairing address issued at start (`ORIGIN/#pair=SECRET`, the origin
    /// `http://localhost:PORT` on plain loopback, `https://HOST[:PORT]` over TLS).
    #[must_use]
    pub fn pairing_url(&self) -> &str {
        &self.pairing_url
    }

    /// How many approvals are pending.
    #[must_use]
    pub fn pending_count(&self) -> usize {
        self.shared.pending_count()
    }

    /// Plugs an embedder's machine answerer (an ACP client, a chat bridge) into this server:
    /// the answerer owns `owned_agent` and answers entry `rpc_id` with its client's `response`.
    /// The book's claim rule applies: it claims only entries of exactly that agent that have a
    /// call id (any other is refused as `foreign`); its client is offered `allow-once` and
    /// `reject-once`; `allow-once` allows once, a cancellation cancels, every other option
    /// rejects. Stale, duplicate and late answers are refused by name as a panel's are. An
    /// accepted answer is delivered to the panels and the waiting hook like a panel's; with an
    /// approver enrolled, the hook takes no allow without an approver's assertion, which a
    /// machine answer never carries. `None` when the store refused the change.
    pub fn answer_as_machine(
        &self,
        owned_agent: &str,
        rpc_id: u64,
        response: seal_policy::approval::MachineResponse<'_>,
    ) -> Option<seal_policy::approval::Receipt> {
        self.shared.machine_respond(owned_agent, rpc_id, response)
    }

    /// Blocks until SIGINT or SIGTERM, then shuts down.
    ///
    /// # Errors
    /// The signal handlers could not be installed.
    pub fn wait_for_signal(mut self) -> Result<(), ServeError> {
        let Some(runtime) = self.runtime.as_ref() else {
            return Ok(());
        };
        let waited: std::io::Result<()> = runtime.block_on(async {
            use tokio::signal::unix::{signal, SignalKind};
            let mut interrupt = signal(SignalKind::interrupt())?;
            let mut terminate = signal(SignalKind::terminate())?;
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            Ok(())
        });
        self.stop(true);
        waited.map_err(io("waiting for a signal"))
    }

    /// Settles every pending approval `cancelled` (`shutdown`), tells the waiting hooks and
    /// panels, and stops; the hook socket's file is removed.
    pub fn shutdown(mut self) {
        self.stop(true);
    }

    /// Stops at once, as a killed server would: pending approvals stay pending in the store,
    /// connections are dropped, the socket file is left behind.
    pub fn abort(mut self) {
        self.stop(false);
    }

    fn stop(&mut self, settle: bool) {
        let Some(runtime) = self.runtime.take() else {
            return;
        };
        if settle {
            self.shared.shutdown();
            // Let the connection tasks write the settlements.
            std::thread::sleep(Duration::from_millis(100));
            runtime.shutdown_timeout(Duration::from_secs(1));
            let _ = std::fs::remove_file(&self.socket);
        } else {
            runtime.shutdown_timeout(Duration::from_secs(1));
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.stop(true);
    }
}

/// Starts a server and returns once it listens on both sockets.
///
/// # Errors
/// A non-loopback address without TLS, an enrolled approver and a trusted host; a trusted host
/// that is invalid, an IP address, or given without TLS; a certificate or key that does not
/// load; another server on the socket, an unsafe socket directory, a store that cannot be
/// opened or rebuilt, or a listener that cannot be bound. Every rule on the panel's address is
/// checked before anything is bound.
pub fn start(config: ServeConfig) -> Result<RunningServer, ServeError> {
    let tls = check_panel(&config)?;
    prepare_socket_path(&config.socket)?;
    let mut store: Box<dyn BookStore> = match &config.fleet {
        Some(fleet) => Box::new(RedisBookStore::open(fleet).map_err(ServeError::Store)?),
        None => {
            if let Some(parent) = config.store.parent().filter(|p| !p.as_os_str().is_empty()) {
                private_directory(parent)?;
            }
            Box::new(Store::open(&config.store).map_err(ServeError::Store)?)
        }
    };
    let loaded = store.load().map_err(ServeError::Store)?;
    let next_rpc_id = loaded.snapshot.next_rpc_id;
    let mut limits = BookLimits::DEFAULT;
    limits.wire.max_pending = MAX_PENDING;
    let book = ApprovalBook::rebuild(limits, loaded.snapshot).map_err(ServeError::Rebuild)?;
    let poll = config.fleet.as_ref().map(|fleet| fleet.poll);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(io("starting the runtime"))?;
    let (tcp, unix) = runtime.block_on(async {
        let tcp = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(io(format!("listening on {}", config.listen)))?;
        let unix = tokio::net::UnixListener::bind(&config.socket)
            .map_err(io(format!("listening on {}", config.socket.display())))?;
        Ok::<_, ServeError>((tcp, unix))
    })?;
    std::fs::set_permissions(&config.socket, std::fs::Permissions::from_mode(0o600))
        .map_err(io(format!("restricting {}", config.socket.display())))?;
    let port = tcp
        .local_addr()
        .map_err(io("reading the panel's address"))?
        .port();
    let hosts = panel_hosts(&config);
    let scheme = if tls.is_some() {
        PanelScheme::Https
    } else {
        PanelScheme::Http
    };
    let trust = RequestTrust::new(&hosts, port, scheme)
        .and_then(|trust| trust.with_open_api_path(PAIR_PATH))
        .map_err(ServeError::Trust)?;
    // The first trusted name is the relying party id and the origin's host; `localhost` on a
    // plain loopback panel (WebAuthn treats it as a secure context).
    let rp_id = hosts.first().copied().unwrap_or("localhost").to_owned();
    let origin = trust.origin_of(&rp_id);
    let token_ttl_ms = u64::try_from(config.token_ttl.as_millis()).unwrap_or(u64::MAX);
    let restored = Restored {
        book,
        side: loaded.side,
        next_rpc_id,
        tokens: loaded.tokens,
        store,
        limits,
    };
    let shared = Arc::new(Shared::new(
        restored,
        config.allow_check,
        config.decision_log,
        origin.clone(),
        token_ttl_ms,
    ));
    let mut pairing_url = shared.pairing_url().ok_or(ServeError::Random)?;
    if let Some(approvers) = shared.check.enrolment() {
        approvers.bind_origin(&origin, &rp_id);
        pairing_url.push_str("&enrol=");
        pairing_url.push_str(approvers.enrol_secret());
    }

    runtime.spawn(crate::hooks::serve_hooks(unix, Arc::clone(&shared)));
    let router = crate::http::router(Arc::clone(&shared), trust);
    match tls {
        Some(tls) => {
            let local = tcp
                .local_addr()
                .map_err(io("reading the panel's address"))?;
            let _entered = runtime.enter();
            let listener = TlsListener::new(tcp, local, tls);
            runtime.spawn(async move {
                if let Err(error) = axum::serve(listener, router).await {
                    eprintln!("seal serve: panel listener: {error}");
                }
            });
        }
        None => {
            runtime.spawn(async move {
                if let Err(error) = axum::serve(tcp, router).await {
                    eprintln!("seal serve: panel listener: {error}");
                }
            });
        }
    }
    let ticking = Arc::clone(&shared);
    runtime.spawn(async move {
        let mut interval = tokio::time::interval(TICK);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            blocking(&ticking, |shared| shared.tick()).await;
        }
    });
    if let Some(poll) = poll {
        let polling = Arc::clone(&shared);
        runtime.spawn(async move {
            let mut interval = tokio::time::interval(poll);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                interval.tick().await;
                blocking(&polling, |shared| shared.poll()).await;
            }
        });
    }
    if config.announce {
        eprintln!(
            "seal serve: approvals on {origin}/ ; hook socket {}",
            config.socket.display()
        );
        if scheme == PanelScheme::Https {
            eprintln!(
                "seal serve: security keys are bound to {origin} (relying party `{rp_id}`): run \
                 the waiting hooks with --approval-origin {origin}"
            );
        }
        eprintln!(
            "seal serve: open this address once to pair a browser (single use; it also enrols \
             the first security key):"
        );
        eprintln!("{pairing_url}");
        if shared.check.approvers() == 0 {
            eprintln!("seal serve: warning: {NO_APPROVER_WARNING}");
        }
    }
    Ok(RunningServer {
        runtime: Some(runtime),
        shared,
        port,
        socket: config.socket,
        pairing_url,
    })
}

/// Runs the server until SIGINT or SIGTERM (blocking; it builds its own runtime).
///
/// # Errors
/// As [`start`], or the signal handlers could not be installed.
pub fn run(config: ServeConfig) -> Result<(), ServeError> {
    start(config)?.wait_for_signal()
}

/// The rules on the panel's address, checked before anything is bound: beyond loopback, TLS, an
/// enrolled approver and a trusted host; a trusted host only with TLS, and never an IP address.
/// The loaded TLS configuration, when one was given.
fn check_panel(config: &ServeConfig) -> Result<Option<Arc<rustls::ServerConfig>>, ServeError> {
    if config.tls.is_none() {
        if let Some(host) = config.trusted_hosts.first() {
            return Err(ServeError::TrustedHostWithoutTls { host: host.clone() });
        }
    }
    if !config.listen.ip().is_loopback() {
        let listen = config.listen;
        if config.tls.is_none() {
            return Err(ServeError::NotLoopback { listen });
        }
        if config.allow_check.approvers() == 0 {
            return Err(ServeError::NoApprover { listen });
        }
        if config.trusted_hosts.is_empty() {
            return Err(ServeError::NoTrustedHost { listen });
        }
    }
    for host in &config.trusted_hosts {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if bare.parse::<IpAddr>().is_ok() {
            return Err(ServeError::TrustedHostIsAddress { host: host.clone() });
        }
    }
    // The names' grammar and count, with the HTTPS default port standing in for the one the
    // listener will get.
    let hosts = panel_hosts(config);
    RequestTrust::new(
        &hosts,
        PanelScheme::Https.default_port(),
        PanelScheme::Https,
    )
    .map_err(ServeError::Trust)?;
    config
        .tls
        .as_ref()
        .map(|files| files.server_config().map_err(ServeError::Tls))
        .transpose()
}

/// The names the panel answers to: the trusted hosts, then the loopback names on loopback.
fn panel_hosts(config: &ServeConfig) -> Vec<&str> {
    let mut hosts: Vec<&str> = config.trusted_hosts.iter().map(String::as_str).collect();
    if config.listen.ip().is_loopback() {
        hosts.extend(LOOPBACK_HOSTS);
    }
    hosts
}

/// Creates the socket's directory (0700) when missing, refuses one writable by others, removes
/// a stale socket file nothing answers on, and refuses when a server answers.
fn prepare_socket_path(socket: &Path) -> Result<(), ServeError> {
    if let Some(parent) = socket.parent().filter(|p| !p.as_os_str().is_empty()) {
        private_directory(parent)?;
    }
    match std::fs::symlink_metadata(socket) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(io(format!("reading {}", socket.display()))(error)),
        Ok(meta) if !meta.file_type().is_socket() => Err(ServeError::UnsafePath {
            path: socket.to_owned(),
            reason: "exists and is not a socket",
        }),
        Ok(_) => {
            if std::os::unix::net::UnixStream::connect(socket).is_ok() {
                return Err(ServeError::AlreadyRunning {
                    socket: socket.to_owned(),
                });
            }
            std::fs::remove_file(socket).map_err(io(format!(
                "removing the stale socket {}",
                socket.display()
            )))
        }
    }
}

/// Creates `dir` with mode 0700 when missing; refuses an existing one that others may write.
fn private_directory(dir: &Path) -> Result<(), ServeError> {
    match std::fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => Err(ServeError::UnsafePath {
            path: dir.to_owned(),
            reason: "is not a directory",
        }),
        Ok(meta) if meta.permissions().mode() & 0o022 != 0 => Err(ServeError::UnsafePath {
            path: dir.to_owned(),
            reason: "is writable by other users (use a directory only you can write)",
        }),
        Ok(_) => Ok(()),
        Err(_) => std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(io(format!("creating {}", dir.display()))),
    }
}
