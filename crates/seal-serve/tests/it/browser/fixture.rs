//! A real approval server on an ephemeral loopback port with its hook socket in a scratch
//! directory, waiting hooks played by `seal_serve::client::wait_for_answer` in threads, and the
//! page-side helpers the browser tests share.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fantoccini::{Client, Locator};
use seal_record::Sha256Digest;
use seal_render::{render_card, ApprovalCard, CardLimits, CardSubject, DigestedText};
use seal_serve::client::{request, wait_for_answer, ClientError, Settled};
use seal_serve::hookwire::{Ask, HookLine, ServerLine};
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
    running: Option<RunningServer>,
    allow_check: Arc<dyn AllowCheck>,
    dir: TempDir,
}

impl Server {
    /// Starts a server with an empty store and no approver.
    pub fn start() -> Server {
        Server::start_with(Arc::new(NoApprovers))
    }

    /// Starts a server whose allows are checked by `allow_check`.
    pub fn start_with(allow_check: Arc<dyn AllowCheck>) -> Server {
        let dir = tempfile::tempdir().expect("a scratch directory for the server");
        let running = seal_serve::start(config(dir.path(), 0, Arc::clone(&allow_check)))
            .expect("the server starts");
        Server {
            port: running.port(),
            socket: running.socket().to_path_buf(),
            running: Some(running),
            allow_check,
            dir,
        }
    }

    /// The address the server gave at start (`#pair=P`, and `&enrol=E` with approvers).
    pub fn start_address(&self) -> String {
        self.running
            .as_ref()
            .map(|running| running.pairing_url().to_owned())
            .expect("the server runs")
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

    /// Registers a call as a waiting hook does (`seal_serve::client::wait_for_answer` in a
    /// thread, reconnecting with the same ask if the server goes away); returns once the server
    /// gave it an rpc id.
    pub fn ask(&self, call: &Call) -> Hook {
        let ask = call.ask();
        let socket = self.socket.clone();
        let (registered_tx, registered_rx) = mpsc::channel();
        let (settled_tx, settled_rx) = mpsc::channel();
        let waiting = ask.clone();
        std::thread::spawn(move || {
            let deadline = Instant::now() + HOOK_WAIT;
            let settled = wait_for_answer(&socket, &waiting, deadline, |rpc_id| {
                let _ = registered_tx.send(rpc_id);
            });
            let _ = settled_tx.send(settled);
        });
        let Ok(rpc_id) = registered_rx.recv_timeout(PATIENCE) else {
            panic!(
                "the server did not register the ask: {:?}",
                settled_rx.try_recv()
            );
        };
        Hook {
            rpc_id,
            ask,
            settled: settled_rx,
        }
    }

    /// Stops the server as if killed and starts it again on the same store, socket and port;
    /// runs on a thread of its own, outside the test's runtime.
    pub fn restart(&mut self) {
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    if let Some(running) = self.running.take() {
                        running.abort();
                    }
                    let config = config(self.dir.path(), self.port, Arc::clone(&self.allow_check));
                    self.running = Some(seal_serve::start(config).expect("the server restarts"));
                })
                .join()
                .expect("the restart");
        });
    }
}

fn config(dir: &Path, port: u16, allow_check: Arc<dyn AllowCheck>) -> ServeConfig {
    let mut config = ServeConfig::new(
        dir.join("run").join("approvals.sock"),
        dir.join("state").join("approvals.db"),
    );
    config.listen = SocketAddr::from(([127, 0, 0, 1], port));
    config.announce = false;
    config.allow_check = allow_check;
    config
}

/// A hook waiting in its own thread.
pub struct Hook {
    /// The rpc id the server gave the entry.
    pub rpc_id: u64,
    /// What the hook registered.
    pub ask: Ask,
    settled: mpsc::Receiver<Result<Settled, ClientError>>,
}

impl Hook {
    /// Waits for the entry to settle.
    pub fn settlement(&self) -> Settled {
        match self.settled.recv_timeout(PATIENCE) {
            Ok(Ok(settled)) => {
                assert_eq!(
                    settled.rpc_id, self.rpc_id,
                    "the settlement of another entry"
                );
                settled
            }
            Ok(Err(error)) => panic!("the hook of {} got no settlement: {error}", self.rpc_id),
            Err(_) => panic!("the entry {} did not settle", self.rpc_id),
        }
    }

    /// Whether the entry settled already (the server wrote to the hook).
    pub fn settled_yet(&self) -> bool {
        match self.settled.try_recv() {
            Ok(answer) => panic!("the entry {} settled: {answer:?}", self.rpc_id),
            Err(mpsc::TryRecvError::Empty) => false,
            Err(mpsc::TryRecvError::Disconnected) => true,
        }
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
