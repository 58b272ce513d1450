//! The hook's side of the hook socket: blocking reads and writes on a Unix stream with
//! timeouts, no async runtime.
//!
//! [`wait_for_answer`] registers an ask and waits until the entry settles or the hook's own
//! deadline passes. A lost connection is retried (backoff from 50 ms doubling to 2 s) with the
//! same ask, which the server answers with the rpc id first issued. Every way of not getting an
//! answer is a [`ClientError`]: the caller leaves the original ask in force.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use seal_record::{Outcome, Sha256Digest};

use crate::hookwire::{Ask, HookLine, LineError, ServerLine, WireAssertion, MAX_HOOK_LINE_BYTES};

/// The first pause before a reconnection.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(50);

/// The longest pause between reconnections.
pub const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How long a hook keeps trying to reach a server it has not yet registered with: past it, an
/// unreachable server is an answer (the ask stays with the client) rather than a wait.
pub const FIRST_CONTACT_GRACE: Duration = Duration::from_secs(2);

/// How long a one-shot request (`elsewhere`, `pair`, `consume`) may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Why no answer came.
#[derive(Debug)]
pub enum ClientError {
    /// No server answered on the socket before the deadline.
    Unreachable(std::io::Error),
    /// The hook's deadline passed while the entry was pending.
    Deadline,
    /// The server refused the line.
    Refused {
        /// The refusal's wire name.
        reason: String,
        /// The server's sentence.
        message: String,
    },
    /// The server wrote something the protocol does not allow here.
    Protocol(String),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Unreachable(error) => {
                write!(f, "the approval server is not reachable: {error}")
            }
            ClientError::Deadline => f.write_str("no answer from the approval panel in time"),
            ClientError::Refused { reason, message } => {
                write!(f, "the approval server refused ({reason}): {message}")
            }
            ClientError::Protocol(message) => {
                write!(f, "the approval server broke the protocol: {message}")
            }
        }
    }
}

impl std::error::Error for ClientError {}

impl From<LineError> for ClientError {
    fn from(error: LineError) -> ClientError {
        ClientError::Protocol(error.to_string())
    }
}

/// A settled entry, on the connection that registered it (consume on it).
#[derive(Debug)]
pub struct Settled {
    /// The entry's rpc id.
    pub rpc_id: u64,
    /// How many approvers the server said were enrolled.
    pub approvers: u64,
    /// The outcome.
    pub outcome: Outcome,
    /// The settle cause's wire name.
    pub cause: String,
    /// The assertion that came with an allow.
    pub assertion: Option<WireAssertion>,
    connection: Connection,
}

impl Settled {
    /// Spends the allow for the call with `digest`; `Ok` only when the server answered
    /// `{"consumed":true}`.
    pub fn consume(&mut self, digest: Sha256Digest, deadline: Instant) -> Result<(), ClientError> {
        let line = HookLine::Consume {
            rpc_id: self.rpc_id,
            arguments_digest: digest,
        };
        self.connection.write(&line.to_line())?;
        match self.connection.read(deadline)? {
            Some(ServerLine::Consumed) => Ok(()),
            Some(ServerLine::Refused { reason, message }) => {
                Err(ClientError::Refused { reason, message })
            }
            Some(other) => Err(ClientError::Protocol(format!(
                "expected the consumption's answer, got {other:?}"
            ))),
            None => Err(ClientError::Protocol(
                "the connection closed before the consumption's answer".to_owned(),
            )),
        }
    }
}

/// Registers `ask` with the server on `socket` and waits until the entry settles or
/// `deadline` passes; `registered` is called once with the rpc id the first time the server
/// registers it (a reconnection's `again` is not reported twice). A server never reached within
/// [`FIRST_CONTACT_GRACE`] is [`ClientError::Unreachable`]; one lost after the registration is
/// retried until the deadline.
pub fn wait_for_answer(
    socket: &Path,
    ask: &Ask,
    deadline: Instant,
    mut registered: impl FnMut(u64),
) -> Result<Settled, ClientError> {
    let line = HookLine::Ask(Box::new(ask.clone())).to_line();
    let mut backoff = FIRST_BACKOFF;
    let mut reported = false;
    let mut last_error: Option<std::io::Error> = None;
    let started = Instant::now();
    loop {
        if !reported && started.elapsed() >= FIRST_CONTACT_GRACE {
            if let Some(error) = last_error {
                return Err(ClientError::Unreachable(error));
            }
        }
        if Instant::now() >= deadline {
            return Err(match last_error {
                Some(error) if !reported => ClientError::Unreachable(error),
                _ => ClientError::Deadline,
            });
        }
        let mut on_registered = |rpc_id: u64| {
            if !reported {
                registered(rpc_id);
                reported = true;
            }
        };
        match attempt(socket, &line, deadline, &mut on_registered) {
            Ok(Attempt::Settled(settled)) => return Ok(*settled),
            Ok(Attempt::Registered { lost }) => {
                backoff = FIRST_BACKOFF;
                last_error = Some(lost);
            }
            Ok(Attempt::Refused { reason, message }) => {
                return Err(ClientError::Refused { reason, message })
            }
            Err(AttemptError::Io(error)) => last_error = Some(error),
            Err(AttemptError::Client(error)) => return Err(error),
        }
        let pause = backoff.min(deadline.saturating_duration_since(Instant::now()));
        std::thread::sleep(pause);
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// Sends one line on a fresh connection and reads one answer.
pub fn request(socket: &Path, line: &HookLine) -> Result<ServerLine, ClientError> {
    let deadline = Instant::now() + REQUEST_TIMEOUT;
    let mut connection = Connection::open(socket).map_err(ClientError::Unreachable)?;
    connection.write(&line.to_line())?;
    match connection.read(deadline)? {
        Some(answer) => Ok(answer),
        None => Err(ClientError::Protocol(
            "the connection closed before an answer".to_owned(),
        )),
    }
}

enum Attempt {
    Settled(Box<Settled>),
    /// Registered (reported), then the connection was lost before the entry settled.
    Registered {
        lost: std::io::Error,
    },
    Refused {
        reason: String,
        message: String,
    },
}

enum AttemptError {
    Io(std::io::Error),
    Client(ClientError),
}

impl From<ClientError> for AttemptError {
    fn from(error: ClientError) -> AttemptError {
        match error {
            ClientError::Unreachable(error) => AttemptError::Io(error),
            other => AttemptError::Client(other),
        }
    }
}

fn attempt(
    socket: &Path,
    line: &str,
    deadline: Instant,
    on_registered: &mut dyn FnMut(u64),
) -> Result<Attempt, AttemptError> {
    let mut connection = Connection::open(socket).map_err(AttemptError::Io)?;
    connection.write(line)?;
    let (rpc_id, approvers) = match connection.read(deadline)? {
        Some(ServerLine::Registered {
            rpc_id, approvers, ..
        }) => (rpc_id, approvers),
        Some(ServerLine::Refused { reason, message }) => {
            return Ok(Attempt::Refused { reason, message })
        }
        Some(other) => {
            return Err(AttemptError::Client(ClientError::Protocol(format!(
                "expected the registration, got {other:?}"
            ))))
        }
        None => return Err(AttemptError::Io(closed())),
    };
    on_registered(rpc_id);
    match connection.read(deadline) {
        Ok(Some(ServerLine::Settled {
            outcome,
            cause,
            assertion,
        })) => Ok(Attempt::Settled(Box::new(Settled {
            rpc_id,
            approvers,
            outcome,
            cause,
            assertion,
            connection,
        }))),
        Ok(Some(other)) => Err(AttemptError::Client(ClientError::Protocol(format!(
            "expected the settlement, got {other:?}"
        )))),
        Ok(None) => Ok(Attempt::Registered { lost: closed() }),
        Err(ClientError::Unreachable(lost)) => Ok(Attempt::Registered { lost }),
        Err(other) => Err(AttemptError::Client(other)),
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        "the approval server closed the connection",
    )
}

/// One connection, read line by line.
#[derive(Debug)]
struct Connection {
    reader: BufReader<UnixStream>,
}

impl Connection {
    fn open(socket: &Path) -> std::io::Result<Connection> {
        let stream = UnixStream::connect(socket)?;
        Ok(Connection {
            reader: BufReader::new(stream),
        })
    }

    fn write(&mut self, line: &str) -> Result<(), ClientError> {
        let stream = self.reader.get_mut();
        stream
            .set_write_timeout(Some(REQUEST_TIMEOUT))
            .and_then(|()| stream.write_all(line.as_bytes()))
            .and_then(|()| stream.write_all(b"\n"))
            .and_then(|()| stream.flush())
            .map_err(ClientError::Unreachable)
    }

    /// The next line, `None` at a clean end of stream; times out at `deadline` with
    /// [`ClientError::Deadline`].
    fn read(&mut self, deadline: Instant) -> Result<Option<ServerLine>, ClientError> {
        let mut line = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ClientError::Deadline);
            }
            self.reader
                .get_ref()
                .set_read_timeout(Some(left))
                .map_err(ClientError::Unreachable)?;
            let available = match self.reader.fill_buf() {
                Ok(bytes) => bytes,
                Err(error)
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(ClientError::Deadline)
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(ClientError::Unreachable(error)),
            };
            if available.is_empty() {
                return if line.is_empty() {
                    Ok(None)
                } else {
                    Err(ClientError::Unreachable(closed()))
                };
            }
            let (taken, done) = match available.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            line.extend_from_slice(available.get(..taken).unwrap_or_default());
            self.reader.consume(taken);
            if line.len() > MAX_HOOK_LINE_BYTES + 1 {
                return Err(ClientError::Protocol(LineError::TooLong.to_string()));
            }
            if done {
                line.pop();
                return ServerLine::parse(&line)
                    .map(Some)
                    .map_err(ClientError::from);
            }
        }
    }
}
