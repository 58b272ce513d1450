//! The panel over HTTPS: the certificate chain and key read from PEM files, and a listener that
//! accepts TCP connections, runs each TLS handshake in its own task under a timeout, and hands
//! axum only the connections whose handshake finished.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Semaphore};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// How long a client may take over its TLS handshake before the connection is dropped.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Most TLS handshakes in progress at once; further connections wait to be accepted.
pub const MAX_HANDSHAKES: usize = 64;

/// The PEM files of the panel's certificate: `--tls-cert` and `--tls-key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first (PEM `CERTIFICATE` blocks).
    pub cert_chain: PathBuf,
    /// The leaf's private key (PEM `PRIVATE KEY`, `RSA PRIVATE KEY` or `EC PRIVATE KEY`).
    pub private_key: PathBuf,
}

/// Why the certificate and key could not be loaded.
#[derive(Debug)]
#[non_exhaustive]
pub enum TlsError {
    /// The certificate file does not read or holds no PEM certificate.
    Certificate {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// The key file does not read or holds no PEM private key.
    PrivateKey {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// rustls refused the pair (the key does not match the leaf, or is of an unsupported kind).
    Config(rustls::Error),
}

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlsError::Certificate { path, detail } => {
                write!(f, "the certificate chain `{}`: {detail}", path.display())
            }
            TlsError::PrivateKey { path, detail } => {
                write!(f, "the private key `{}`: {detail}", path.display())
            }
            TlsError::Config(error) => write!(f, "the certificate and key: {error}"),
        }
    }
}

impl std::error::Error for TlsError {}

impl TlsFiles {
    /// The rustls server configuration: TLS 1.2 and 1.3 with the `ring` provider, HTTP/1.1 by
    /// ALPN, no client certificates.
    pub(crate) fn server_config(&self) -> Result<Arc<rustls::ServerConfig>, TlsError> {
        let chain = CertificateDer::pem_file_iter(&self.cert_chain)
            .and_then(Iterator::collect::<Result<Vec<_>, _>>)
            .map_err(|error| TlsError::Certificate {
                path: self.cert_chain.clone(),
                detail: error.to_string(),
            })?;
        if chain.is_empty() {
            return Err(TlsError::Certificate {
                path: self.cert_chain.clone(),
                detail: "no PEM CERTIFICATE block".to_owned(),
            });
        }
        let key = PrivateKeyDer::from_pem_file(&self.private_key).map_err(|error| {
            TlsError::PrivateKey {
                path: self.private_key.clone(),
                detail: error.to_string(),
            }
        })?;
        // rustls 0.23.48 deprecates the ring provider for its lack of a post-quantum key
        // exchange (X25519MLKEM768 is aws-lc-rs's); ring is the workspace's one crypto library,
        // and the classical exchanges it offers are those of the browsers' fallback.
        #[allow(deprecated)]
        let provider = rustls::crypto::ring::default_provider();
        let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(provider))
            .with_safe_default_protocol_versions()
            .map_err(TlsError::Config)?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(TlsError::Config)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }
}

/// A listener of TLS connections for `axum::serve`: a task accepts TCP connections and spawns
/// one handshake task each (at most [`MAX_HANDSHAKES`] at once, each under
/// [`HANDSHAKE_TIMEOUT`]), so a client that stalls its handshake holds up no one else.
pub(crate) struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
}

impl TlsListener {
    /// Starts accepting on `tcp` (on the current runtime).
    pub(crate) fn new(
        tcp: TcpListener,
        local: SocketAddr,
        config: Arc<rustls::ServerConfig>,
    ) -> TlsListener {
        let (sender, ready) = mpsc::channel(MAX_HANDSHAKES);
        let acceptor = TlsAcceptor::from(config);
        let handshakes = Arc::new(Semaphore::new(MAX_HANDSHAKES));
        tokio::spawn(async move {
            loop {
                let Ok(permit) = Arc::clone(&handshakes).acquire_owned().await else {
                    return;
                };
                let (stream, peer) = match tcp.accept().await {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        // Out of file descriptors and the like: wait rather than spin.
                        eprintln!("seal serve: panel listener: {error}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let acceptor = acceptor.clone();
                let sender = sender.clone();
                tokio::spawn(async move {
                    let handshake =
                        tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await;
                    drop(permit);
                    match handshake {
                        Ok(Ok(tls)) => {
                            let _ = sender.send((tls, peer)).await;
                        }
                        Ok(Err(error)) => {
                            eprintln!("seal serve: TLS handshake with {peer} failed: {error}");
                        }
                        Err(_) => {
                            eprintln!("seal serve: TLS handshake with {peer} timed out");
                        }
                    }
                });
            }
        });
        TlsListener { ready, local }
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(accepted) => accepted,
            // The accepting task holds the sender for as long as it runs; it ends only with
            // the runtime, and then this future is dropped with it.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}
