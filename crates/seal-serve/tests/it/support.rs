//! Helpers: a server in a temporary directory, a raw HTTP/1.1 client (exact headers), an SSE
//! reader, and asks.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use seal_record::Sha256Digest;
use seal_serve::client::{wait_for_answer, ClientError, Settled};
use seal_serve::hookwire::Ask;
use seal_serve::{start, RunningServer, ServeConfig};
use serde_json::Value;

pub fn fail(message: impl std::fmt::Display) -> ! {
    panic!("{message}")
}

/// A scratch directory with the socket and store paths of one server.
pub struct Place {
    pub dir: tempfile::TempDir,
}

impl Place {
    pub fn new() -> Place {
        Place {
            dir: tempfile::tempdir().unwrap_or_else(|e| fail(e)),
        }
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("run").join("approvals.sock")
    }

    pub fn store(&self) -> PathBuf {
        self.dir.path().join("state").join("approvals.db")
    }

    pub fn config(&self) -> ServeConfig {
        let mut config = ServeConfig::new(self.socket(), self.store());
        config.listen = "127.0.0.1:0".parse().unwrap_or_else(|e| fail(e));
        config.announce = false;
        config
    }

    pub fn start(&self) -> RunningServer {
        start(self.config()).unwrap_or_else(|e| fail(e))
    }
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| fail(format!("{e}: {}", self.body)))
    }
}

/// Sends `request` as written (CRLF line ends added) and reads the answer to the end.
pub fn raw(port: u16, request: &str) -> Answer {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| fail(e));
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap_or_else(|e| fail(e));
    stream
        .write_all(request.as_bytes())
        .unwrap_or_else(|e| fail(e));
    let mut reader = BufReader::new(stream);
    let (status, head) = read_head(&mut reader);
    let body = read_body(&mut reader, &head);
    Answer { status, head, body }
}

pub fn read_head(reader: &mut impl BufRead) -> (u16, String) {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        let read = reader.read_line(&mut line).unwrap_or_else(|e| fail(e));
        if read == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fail(format!("no status in {head:?}")));
    (status, head)
}

pub fn read_body(reader: &mut impl BufRead, head: &str) -> String {
    let lower = head.to_ascii_lowercase();
    let mut body = Vec::new();
    if lower.contains("transfer-encoding: chunked") {
        while let Some(chunk) = read_chunk(reader) {
            body.extend_from_slice(&chunk);
        }
    } else if let Some(length) = lower
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse::<usize>().ok())
    {
        body.resize(length, 0);
        reader.read_exact(&mut body).unwrap_or_else(|e| fail(e));
    } else {
        let _ = reader.read_to_end(&mut body);
    }
    String::from_utf8(body).unwrap_or_else(|e| fail(e))
}

/// One chunk of a chunked body; `None` at the last one (or a closed stream).
pub fn read_chunk(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut size = String::new();
    if reader.read_line(&mut size).ok()? == 0 {
        return None;
    }
    let size = usize::from_str_radix(size.trim(), 16).ok()?;
    if size == 0 {
        return None;
    }
    let mut chunk = vec![0; size + 2];
    reader.read_exact(&mut chunk).ok()?;
    chunk.truncate(size);
    Some(chunk)
}

/// A request as the panel sends it: Host, bearer, JSON body.
pub fn api(port: u16, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> Answer {
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: localhost:{port}\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(body) = body {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("Connection: close\r\n\r\n");
    if let Some(body) = body {
        request.push_str(body);
    }
    raw(port, &request)
}

/// Pairs with the start address's secret; the bearer token.
pub fn pair(server: &RunningServer) -> String {
    pair_with(server.port(), server.pairing_url())
}

pub fn pair_with(port: u16, url: &str) -> String {
    let secret = url
        .split_once("#pair=")
        .map(|(_, rest)| rest.split('&').next().unwrap_or(rest))
        .unwrap_or_else(|| fail(url));
    let answer = api(
        port,
        "POST",
        "/api/pair",
        None,
        Some(&format!("{{\"secret\":\"{secret}\"}}")),
    );
    assert_eq!(answer.status, 200, "{answer:?}");
    answer.json()["token"]
        .as_str()
        .unwrap_or_else(|| fail("no token"))
        .to_owned()
}

/// A panel's event stream.
pub struct Panel {
    reader: BufReader<TcpStream>,
    pending: Vec<u8>,
}

impl Panel {
    pub fn connect(port: u16, token: &str) -> Panel {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| fail(e));
        let request = format!(
            "GET /api/events HTTP/1.1\r\nHost: localhost:{port}\r\nAuthorization: Bearer {token}\r\n\
             Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: cors\r\nSec-Fetch-Dest: empty\r\n\r\n"
        );
        stream
            .write_all(request.as_bytes())
            .unwrap_or_else(|e| fail(e));
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap_or_else(|e| fail(e));
        let mut reader = BufReader::new(stream);
        let (status, head) = read_head(&mut reader);
        assert_eq!(status, 200, "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: text/event-stream"),
            "{head}"
        );
        Panel {
            reader,
            pending: Vec::new(),
        }
    }

    /// The next `data:` frame, or `None` when the stream ends or nothing comes in `wait`.
    pub fn next(&mut self, wait: Duration) -> Option<Value> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(at) = self.pending.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = self.pending.drain(..at + 2).collect();
                let text = String::from_utf8(event).unwrap_or_else(|e| fail(e));
                if let Some(data) = text.lines().find_map(|line| line.strip_prefix("data: ")) {
                    return Some(serde_json::from_str(data).unwrap_or_else(|e| fail(e)));
                }
                continue;
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            self.reader
                .get_ref()
                .set_read_timeout(Some(left.max(Duration::from_millis(1))))
                .ok()?;
            let chunk = read_chunk(&mut self.reader)?;
            self.pending.extend_from_slice(&chunk);
        }
    }

    /// Frames until one of `kind` passes `matches`.
    pub fn until(&mut self, kind: &str, matches: impl Fn(&Value) -> bool) -> Value {
        loop {
            let frame = self
                .next(Duration::from_secs(15))
                .unwrap_or_else(|| fail(format!("no `{kind}` frame came")));
            if frame["type"] == kind && matches(&frame) {
                return frame;
            }
        }
    }
}

/// An ask of `Bash` running `echo {n}` in `session`, due in `wait`.
pub fn ask(session: &str, n: u64, wait: Duration) -> Ask {
    let arguments = format!("{{\"command\":\"echo {n}\"}}");
    Ask {
        session_id: session.to_owned(),
        agent: "claude-code".to_owned(),
        approval_id: format!("approval-{n}"),
        tool: "Bash".to_owned(),
        call_id: Some(format!("call-{n}")),
        reason: "runs a command".to_owned(),
        arguments_digest: Sha256Digest::of(arguments.as_bytes()),
        arguments,
        card: format!("Bash: echo {n}"),
        deadline_ms: now_ms() + u64::try_from(wait.as_millis()).unwrap_or(0),
        nonce: [u8::try_from(n % 256).unwrap_or(0); 32],
    }
}

/// A hook waiting in a thread; the rpc id arrives on the channel when registered.
pub fn hook(
    socket: &Path,
    ask: Ask,
    wait: Duration,
) -> (
    JoinHandle<Result<Settled, ClientError>>,
    mpsc::Receiver<u64>,
) {
    let (sender, receiver) = mpsc::channel();
    let socket = socket.to_owned();
    let handle = std::thread::spawn(move || {
        wait_for_answer(&socket, &ask, Instant::now() + wait, |rpc_id| {
            let _ = sender.send(rpc_id);
        })
    });
    (handle, receiver)
}

/// The response body a panel posts.
pub fn response(rpc_id: u64, session: &str, approval: &str, outcome: &str) -> String {
    format!(
        "{{\"response\":{{\"approval_id\":\"{approval}\",\"outcome\":\"{outcome}\",\"rpc_id\":{rpc_id},\"session_id\":\"{session}\"}},\"assertion\":null}}"
    )
}

pub fn respond(port: u16, token: &str, body: &str) -> Value {
    let answer = api(port, "POST", "/api/respond", Some(token), Some(body));
    assert_eq!(answer.status, 200, "{answer:?}");
    answer.json()
}
