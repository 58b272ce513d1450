//! The hook socket: one task per connection, reading the hook's lines and answering them
//! (spec/approval-server.md, "The hook socket protocol").

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::oneshot;

use crate::hookwire::{HookLine, ServerLine, MAX_HOOK_LINE_BYTES};
use crate::state::{blocking, AskAnswer, Shared};

/// How long a new connection may take to write its first line.
pub const FIRST_LINE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection may stay idle after its entry settled (waiting for `consume`).
pub const SETTLED_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Accepts hook connections until the runtime stops.
pub(crate) async fn serve_hooks(listener: UnixListener, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(connection(Arc::clone(&shared), stream));
            }
            Err(error) => {
                eprintln!("seal serve: hook socket: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

async fn connection(shared: Arc<Shared>, stream: UnixStream) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let line = match tokio::time::timeout(FIRST_LINE_TIMEOUT, read_line(&mut reader)).await {
        Ok(Ok(Some(line))) => line,
        _ => return,
    };
    match HookLine::parse(&line) {
        Err(error) => {
            let _ = write_line(&mut write, &refused("malformed", &error.to_string())).await;
        }
        Ok(HookLine::Ask(ask)) => {
            let connection = shared.connection_id();
            let (waiter, settled) = oneshot::channel();
            let answer =
                blocking(&shared, move |shared| shared.ask(&ask, connection, waiter)).await;
            let Some(answer) = answer else { return };
            let (line, rpc_id, now) = match answer {
                AskAnswer::Refused(line) => {
                    let _ = write_line(&mut write, &line).await;
                    return;
                }
                AskAnswer::Registered {
                    line,
                    rpc_id,
                    settled,
                } => (line, rpc_id, settled),
            };
            let written = write_line(&mut write, &line).await.is_ok();
            let settled_line = match now {
                Some(line) => line,
                None if !written => {
                    blocking(&shared, move |shared| shared.hook_gone(rpc_id, connection)).await;
                    return;
                }
                None => {
                    tokio::select! {
                        settled = settled => match settled {
                            Ok(line) => line,
                            Err(_) => return,
                        },
                        _ = reader.fill_buf() => {
                            // Bytes, end of stream or an error while pending: the hook is gone
                            // (it writes nothing before the settlement).
                            blocking(&shared, move |shared| shared.hook_gone(rpc_id, connection)).await;
                            return;
                        }
                    }
                }
            };
            if write_line(&mut write, &settled_line).await.is_ok() {
                consume_loop(&shared, &mut reader, &mut write, None).await;
            }
        }
        Ok(other) => consume_loop(&shared, &mut reader, &mut write, Some(other)).await,
    }
}

/// Answers one-shot lines (`consume`, `elsewhere`, `pair`); after a `consume` more `consume`
/// lines may follow on the same connection.
async fn consume_loop(
    shared: &Arc<Shared>,
    reader: &mut BufReader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    mut first: Option<HookLine>,
) {
    loop {
        let line = match first.take() {
            Some(line) => line,
            None => {
                let bytes =
                    match tokio::time::timeout(SETTLED_IDLE_TIMEOUT, read_line(reader)).await {
                        Ok(Ok(Some(bytes))) => bytes,
                        _ => return,
                    };
                match HookLine::parse(&bytes) {
                    Ok(line) => line,
                    Err(error) => {
                        let _ = write_line(write, &refused("malformed", &error.to_string())).await;
                        return;
                    }
                }
            }
        };
        let (answer, more) = match line {
            HookLine::Consume {
                rpc_id,
                arguments_digest,
            } => (
                blocking(shared, move |shared| {
                    shared.consume(rpc_id, &arguments_digest)
                })
                .await,
                true,
            ),
            HookLine::Elsewhere {
                session_id,
                tool,
                arguments_digest,
            } => (
                blocking(shared, move |shared| {
                    shared.elsewhere(&session_id, &tool, &arguments_digest)
                })
                .await,
                false,
            ),
            HookLine::Pair => (
                blocking(shared, |shared| match shared.pairing_url() {
                    Some(url) => ServerLine::Pairing { url },
                    None => refused("unavailable", "no random bytes for a pairing secret"),
                })
                .await,
                false,
            ),
            HookLine::Ask(_) => (
                Some(refused(
                    "malformed",
                    "one ask per connection, as its first line",
                )),
                false,
            ),
        };
        let Some(answer) = answer else { return };
        if write_line(write, &answer).await.is_err() || !more {
            return;
        }
    }
}

fn refused(reason: &str, message: &str) -> ServerLine {
    ServerLine::Refused {
        reason: reason.to_owned(),
        message: message.to_owned(),
    }
}

async fn write_line(write: &mut OwnedWriteHalf, line: &ServerLine) -> std::io::Result<()> {
    let mut text = line.to_line();
    text.push('\n');
    write.write_all(text.as_bytes()).await?;
    write.flush().await
}

/// The next line without its newline; `None` at a clean end of stream; an error past
/// [`MAX_HOOK_LINE_BYTES`].
async fn read_line(reader: &mut BufReader<OwnedReadHalf>) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return if line.is_empty() {
                Ok(None)
            } else {
                Err(std::io::ErrorKind::UnexpectedEof.into())
            };
        }
        let (taken, done) = match available.iter().position(|&byte| byte == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        line.extend_from_slice(available.get(..taken).unwrap_or_default());
        reader.consume(taken);
        if line.len() > MAX_HOOK_LINE_BYTES + 1 {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        if done {
            line.pop();
            return Ok(Some(line));
        }
    }
}
