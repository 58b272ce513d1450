//! A real approval server on an ephemeral loopback port with its hook socket in a scratch
//! directory, waiting hooks played by `seal_serve::client::wait_for_answer` in threads, and the
//! page-side helpers the browser tests share.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fantoccini::{Client, Locator};
use seal_record::Outcome;
use seal_record::Sha256Digest;
use seal_render::{render_card, ApprovalCard, CardLimits, CardSubject, DigestedText};
use seal_serve::client::request;
use seal_serve::hookwire::{Ask, HookLine, ServerLine, WireAssertion};
use seal_serve::{AllowCheck, NoApprovers, RunningServer, ServeConfig};
use serde_json::Value;
use tempfile::TempDir;

use super::driver::eval;

/// How long a waiting hook waits (the tests end long before).
const HOOK_WAIT: Duration = Duration::from_secs(600);

/// How long a test waits for the page or a hook before it fails (a loaded 2-core machine).
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A running server.
pub struct Server {
    /// The panel's port on loopback.
    pub port: u16,
    /// The hook socket.
    pub socket: PathBuf,
    _running: RunningServer,
    _dir: TempDir,
}

impl Server {
    /// Starts a server with an empty store and no approver.
    pub fn start() -> Server {
        Server::start_with(Arc::new(NoApprovers))
    }

    /// Starts a server whose allows are checked by `allow_check`.
    pub fn start_with(allow_check: Arc<dyn AllowCheck>) -> Server {
        let dir = tempfile::tempdir().expect("a scratch directory for the server");
        let mut config = ServeConfig::new(
            dir.path().join("run").join("approvals.sock"),
            dir.path().join("state").join("approvals.db"),
        );
        config.listen = SocketAddr::from(([127, 0, 0, 1], 0));
        config.announce = false;
        config.allow_check = allow_check;
        let running = seal_serve::start(config).expect("the server starts");
        Server {
            port: running.port(),
            socket: running.socket().to_path_buf(),
            _running: running,
            _dir: dir,
        }
    }

    /// The panel's origin as the person opens it.
    pub fn origin(&self) -> String {
        format!("http://localhost:{}", self.port)
    }

    /// A fresh single-use pairing address (`seal serve pair`).
    pub fn pairing_url(&self) -> String {
        match request(&self.socket, &HookLine::Pair) {
            Ok(ServerLine::Pairing { url }) => url,
            other => panic!("expected a pairing address, got {other:?}"),
        }
    }

    /// Registers a call as a waiting hook does and keeps its connection (the hook's lease)
    /// open in a thread until the entry settles; returns once the server gave it an rpc id.
    pub fn ask(&self, call: &Call) -> Hook {
        let ask = call.ask();
        let stream = UnixStream::connect(&self.socket).expect("the hook socket accepts");
        stream
            .set_read_timeout(Some(HOOK_WAIT))
            .expect("a read timeout");
        let mut writer = stream
            .try_clone()
            .expect("a second handle on the hook connection");
        let mut reader = BufReader::new(stream);
        let line = HookLine::Ask(Box::new(ask.clone())).to_line();
        writer
            .write_all(format!("{line}\n").as_bytes())
            .expect("the ask is written");
        let rpc_id = match read_line(&mut reader) {
            Some(ServerLine::Registered { rpc_id, .. }) => rpc_id,
            other => panic!("expected the registration, got {other:?}"),
        };
        let (settled_tx, settled_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _lease = writer;
            let _ = settled_tx.send(read_line(&mut reader));
        });
        Hook {
            rpc_id,
            ask,
            settled: settled_rx,
        }
    }
}

/// A hook waiting in its own thread.
pub struct Hook {
    /// The rpc id the server gave the entry.
    pub rpc_id: u64,
    /// What the hook registered.
    pub ask: Ask,
    settled: mpsc::Receiver<Option<ServerLine>>,
}

/// How an entry settled, as the hook read it.
#[derive(Debug)]
pub struct Settlement {
    /// The outcome.
    pub outcome: Outcome,
    /// The settle cause's wire name.
    pub cause: String,
    /// The assertion that came with an allow.
    pub assertion: Option<WireAssertion>,
}

impl Hook {
    /// Waits for the entry to settle.
    pub fn settlement(&self) -> Settlement {
        match self.settled.recv_timeout(PATIENCE) {
            Ok(Some(ServerLine::Settled {
                outcome,
                cause,
                assertion,
            })) => Settlement {
                outcome,
                cause,
                assertion,
            },
            Ok(other) => panic!("expected the settlement of {}, got {other:?}", self.rpc_id),
            Err(_) => panic!("the entry {} did not settle", self.rpc_id),
        }
    }

    /// Whether the entry settled already (the server wrote to the hook).
    pub fn settled_yet(&self) -> bool {
        match self.settled.try_recv() {
            Ok(line) => panic!("the entry {} settled: {line:?}", self.rpc_id),
            Err(mpsc::TryRecvError::Empty) => false,
            Err(mpsc::TryRecvError::Disconnected) => true,
        }
    }
}

/// The next line the server writes, `None` when the connection ends first.
fn read_line(reader: &mut BufReader<UnixStream>) -> Option<ServerLine> {
    let mut line = String::new();
    match reader.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(
            ServerLine::parse(line.trim_end_matches('\n').as_bytes())
                .unwrap_or_else(|error| panic!("the server wrote a bad line: {error}: {line}")),
        ),
    }
}

/// A tool call for a hook to ask about.
pub struct Call {
    /// The tool.
    pub tool: &'static str,
    /// The arguments as the client sent them (not necessarily JSON).
    pub arguments: String,
    /// The reason seal asks.
    pub reason: &'static str,
}

impl Call {
    /// A `Bash` call of `command`.
    pub fn bash(command: &str) -> Call {
        Call {
            tool: "Bash",
            arguments: serde_json::json!({ "command": command }).to_string(),
            reason: "rule `Bash(git push:*)` asks",
        }
    }

    /// A call of another tool whose arguments also carry a `command` member.
    pub fn write_with_command_member() -> Call {
        Call {
            tool: "Write",
            arguments: r#"{"file_path":"notes.txt","content":"hello","command":"rm -rf ~"}"#
                .to_owned(),
            reason: "rule `Write` asks",
        }
    }

    /// A `Bash` call whose arguments are not JSON.
    pub fn bash_malformed() -> Call {
        Call {
            tool: "Bash",
            arguments: r#"{"command":"ls -la""#.to_owned(),
            reason: "the arguments do not parse",
        }
    }

    /// The command the card must show, when the server's rule shows one.
    pub fn shown_command(&self) -> Option<String> {
        if self.tool != "Bash" {
            return None;
        }
        let value: Value = serde_json::from_str(&self.arguments).ok()?;
        value.get("command")?.as_str().map(str::to_owned)
    }

    fn ask(&self) -> Ask {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let approval_id = format!("approval-{n}");
        let call_id = format!("call-{n}");
        let session_id = "0b5c1a3e-7d2f-4c88-9e61-2a4f5d6c7b80".to_owned();
        let command = self.shown_command();
        let digest = |text: &str| *Sha256Digest::of(text.as_bytes()).as_bytes();
        let card = render_card(
            &ApprovalCard {
                approval_id: &approval_id,
                tool: self.tool,
                call_id: &call_id,
                session: &session_id,
                agent: "claude-code",
                subject: command.as_deref().map(|command| {
                    (
                        CardSubject::Command,
                        DigestedText {
                            text: command,
                            sha256: digest(command),
                        },
                    )
                }),
                arguments: DigestedText {
                    text: &self.arguments,
                    sha256: digest(&self.arguments),
                },
                sandbox: "workspace-write",
                reason: DigestedText {
                    text: self.reason,
                    sha256: digest(self.reason),
                },
            },
            &CardLimits::default(),
        );
        Ask {
            session_id,
            agent: "claude-code".to_owned(),
            approval_id,
            tool: self.tool.to_owned(),
            call_id: Some(call_id),
            reason: self.reason.to_owned(),
            arguments: self.arguments.clone(),
            arguments_digest: Sha256Digest::of(self.arguments.as_bytes()),
            card,
            deadline_ms: unix_ms() + HOOK_WAIT.as_millis() as u64,
            nonce: [n as u8; 32],
        }
    }
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_millis() as u64
}

/// The CSS selector of the card of `rpc_id`.
pub fn card(rpc_id: u64) -> String {
    format!("article.card[data-rpc-id=\"{rpc_id}\"]")
}

/// Waits until the card of `rpc_id` is on the page.
pub async fn wait_for_card(client: &Client, rpc_id: u64) {
    client
        .wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css(&card(rpc_id)))
        .await
        .unwrap_or_else(|error| panic!("the card of {rpc_id} did not appear: {error}"));
}

/// Waits until `predicate` (a script returning a boolean) holds in the page.
pub async fn until(client: &Client, what: &str, predicate: &str) {
    let started = Instant::now();
    loop {
        if eval(client, predicate, vec![]).await == Value::Bool(true) {
            return;
        }
        assert!(started.elapsed() < PATIENCE, "waited in vain for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the card of `rpc_id` is gone from the page.
pub async fn wait_until_gone(client: &Client, rpc_id: u64) {
    let script = format!(
        "return document.querySelector('{}') === null;",
        card(rpc_id).replace('\'', "\\'")
    );
    until(client, &format!("the card of {rpc_id} to go"), &script).await;
}

/// The `textContent` of the first element matching `selector` inside the card of `rpc_id`,
/// or `None` when there is none.
pub async fn card_text(client: &Client, rpc_id: u64, selector: &str) -> Option<String> {
    let value = eval(
        client,
        "const card = document.querySelector(arguments[0]);
         const node = card && card.querySelector(arguments[1]);
         return node ? node.textContent : null;",
        vec![Value::from(card(rpc_id)), Value::from(selector)],
    )
    .await;
    value.as_str().map(str::to_owned)
}

/// Clicks a button of the card of `rpc_id` (`allow` or `refuse`).
pub async fn click(client: &Client, rpc_id: u64, button: &str) {
    client
        .find(Locator::Css(&format!("{} button.{button}", card(rpc_id))))
        .await
        .unwrap_or_else(|error| panic!("no {button} button on {rpc_id}: {error}"))
        .click()
        .await
        .unwrap_or_else(|error| panic!("clicking {button} on {rpc_id}: {error}"));
}

/// Whether both buttons of the card of `rpc_id` are enabled.
pub async fn armed(client: &Client, rpc_id: u64) -> bool {
    eval(
        client,
        "const buttons = document.querySelectorAll(arguments[0] + ' button');
         return buttons.length === 2 && Array.from(buttons).every((b) => !b.disabled);",
        vec![Value::from(card(rpc_id))],
    )
    .await
        == Value::Bool(true)
}

/// Wraps the page's `fetch`: counts the calls to `/api/respond` in `window.respondCalls`, and
/// answers the first `fail_first` of them with `failure` (a script expression evaluated per
/// call, e.g. `Promise.reject(new TypeError('offline'))`) instead of sending them.
pub async fn instrument_fetch(client: &Client, fail_first: u32, failure: &str) {
    let script = format!(
        "const real = window.fetch.bind(window);
         window.respondCalls = 0;
         let failures = {fail_first};
         window.fetch = function (resource, init) {{
           if (String(resource).endsWith('/api/respond')) {{
             window.respondCalls += 1;
             if (failures > 0) {{ failures -= 1; return {failure}; }}
           }}
           return real(resource, init);
         }};
         return true;"
    );
    eval(client, &script, vec![]).await;
}

/// How many times the page called `/api/respond` since [`instrument_fetch`].
pub async fn respond_calls(client: &Client) -> u64 {
    eval(client, "return window.respondCalls;", vec![])
        .await
        .as_u64()
        .expect("the page counts its responses")
}
