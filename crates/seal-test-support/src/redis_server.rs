//! The Redis server of the Redis tests: `SEAL_TEST_REDIS` names it (for example
//! `redis://127.0.0.1:6390/0`); a test needing it fails, saying how to start one, when the
//! variable is unset or the server does not answer. Private servers for fault tests are started
//! on free loopback ports and killed on drop.

#![allow(clippy::panic)]

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How to give the tests a server.
pub const HOW_TO: &str = "the Redis tests need a redis-server: run the tests with \
    `bash scripts/test` (it installs, starts and stops one), or start one with \
    `redis-server --bind 127.0.0.1 --port 6390 --save '' --appendonly no` and set \
    SEAL_TEST_REDIS=redis://127.0.0.1:6390/0";

/// The test server's URL.
///
/// # Panics
///
/// With [`HOW_TO`] when `SEAL_TEST_REDIS` is unset or the server does not answer.
pub fn server() -> String {
    let url = match std::env::var("SEAL_TEST_REDIS") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!("SEAL_TEST_REDIS is not set: {HOW_TO}"),
    };
    if let Err(error) = ping(&url) {
        panic!("SEAL_TEST_REDIS=`{url}` does not answer ({error}): {HOW_TO}");
    }
    url
}

/// The test server's database `db`, emptied first (`FLUSHDB`), as a URL: for a test that
/// counts what the database holds. Each such test uses a database number of its own.
///
/// # Panics
///
/// As [`server`], and when `FLUSHDB` fails.
pub fn database(db: u32) -> String {
    let server = server();
    let (host_port, _) = server
        .trim_start_matches("redis://")
        .split_once('/')
        .unwrap_or((server.trim_start_matches("redis://"), ""));
    let url = format!("redis://{host_port}/{db}");
    let flushed =
        connect(&url).and_then(|mut connection| redis::cmd("FLUSHDB").query::<()>(&mut connection));
    if let Err(error) = flushed {
        panic!("FLUSHDB on `{url}` failed: {error}");
    }
    url
}

/// A connection to `url`, waiting at most two seconds.
pub fn connect(url: &str) -> redis::RedisResult<redis::Connection> {
    redis::Client::open(url)?.get_connection_with_timeout(Duration::from_secs(2))
}

fn ping(url: &str) -> redis::RedisResult<String> {
    redis::cmd("PING").query(&mut connect(url)?)
}

/// A conversation id no other test or run uses, so claims in a shared database never meet.
pub fn unique_conversation(label: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos())
        .unwrap_or(0);
    format!("{label}-{}-{nanos}", std::process::id())
}

/// A loopback port nothing listens on (bound, then released).
///
/// # Panics
///
/// When no loopback port can be bound.
pub fn free_port() -> u16 {
    match TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()) {
        Ok(address) => address.port(),
        Err(error) => panic!("no free loopback port: {error}"),
    }
}

/// A `redis-server` of the test's own on a loopback port, killed on drop.
pub struct PrivateServer {
    child: Child,
    port: u16,
}

impl PrivateServer {
    /// Starts a server on a free port and waits until it answers.
    ///
    /// # Panics
    ///
    /// As [`PrivateServer::start_on`].
    pub fn start() -> PrivateServer {
        PrivateServer::start_on(free_port())
    }

    /// Starts a server on `port` and waits until it answers, for a test that starts a server
    /// again where one stopped.
    ///
    /// # Panics
    ///
    /// When `redis-server` cannot be started or does not answer within ten seconds.
    pub fn start_on(port: u16) -> PrivateServer {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start `redis-server` ({error}): {HOW_TO}"));
        let server = PrivateServer { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while ping(&server.url()).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    /// `redis://127.0.0.1:port/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Kills the server, waits for it, and waits (at most five seconds) until its port no
    /// longer accepts connections.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let deadline = Instant::now() + Duration::from_secs(5);
        while TcpStream::connect(("127.0.0.1", self.port)).is_ok() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        self.stop();
    }
}
