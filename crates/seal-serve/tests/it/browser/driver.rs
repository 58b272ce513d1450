//! Headless Chromium through chromedriver: one chromedriver on an ephemeral loopback port and
//! one fresh browser profile per test, both gone when the [`Browser`] is dropped.
//!
//! A machine without chromedriver fails the test with the packages to install: the browser
//! tests never skip.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};
use tempfile::TempDir;
use tokio::sync::{Mutex, MutexGuard};

/// What to install when chromedriver or Chromium is missing.
const MISSING: &str = "The panel's browser tests need Chromium and chromedriver: install them \
     (Debian/Ubuntu: apt-get install chromium chromium-driver; scripts/test does this when it \
     can), or set SEAL_TEST_CHROMEDRIVER to a chromedriver";

/// How long chromedriver may take to say which port it listens on.
const DRIVER_START: Duration = Duration::from_secs(60);

/// The flags this machine needs (headless as root, no background traffic).
const CHROME_FLAGS: [&str; 8] = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
];

/// One browser at a time: two cores do not run several Chromiums and a server well, and a
/// test's waits are then about the page, not the neighbours.
static ONE_BROWSER: Mutex<()> = Mutex::const_new(());

/// A WebDriver session on a headless Chromium of its own.
pub struct Browser {
    /// The WebDriver client.
    pub client: Client,
    driver: Child,
    _profile: TempDir,
    _turn: MutexGuard<'static, ()>,
}

impl Browser {
    /// Starts chromedriver and a browser whose window is `width` x `height`.
    pub async fn start(width: u32, height: u32) -> Browser {
        let turn = ONE_BROWSER.lock().await;
        let chromedriver = chromedriver();
        let profile = tempfile::tempdir().expect("a scratch directory for the browser profile");
        let mut command = Command::new(&chromedriver);
        command
            .arg("--port=0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // Its own process group, so the browser it starts is killed with it.
            .process_group(0);
        let mut driver = command.spawn().unwrap_or_else(|error| {
            panic!("starting {}: {error}. {MISSING}", chromedriver.display())
        });
        let port = match driver_port(&mut driver) {
            Ok(port) => port,
            Err(message) => {
                kill_group(&mut driver);
                panic!("chromedriver did not start: {message}");
            }
        };
        let mut args: Vec<String> = CHROME_FLAGS.iter().map(|flag| (*flag).to_owned()).collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        args.push(format!("--window-size={width},{height}"));
        let mut chrome_options = json!({ "args": args });
        if let Some(binary) = chromium() {
            chrome_options["binary"] = json!(binary);
        }
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".to_owned(), chrome_options);
        capabilities.insert("webauthn:virtualAuthenticators".to_owned(), json!(true));
        // seal-serve enables rustls's `ring` provider and fantoccini its default `aws-lc-rs`:
        // with two compiled in, rustls has no process default until one is installed (a second
        // install, from another test's driver, fails harmlessly).
        #[allow(deprecated)]
        let _ = rustls::crypto::ring::default_provider().install_default();
        let connected = ClientBuilder::rustls()
            .expect("a rustls connector")
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        let client = match connected {
            Ok(client) => client,
            Err(error) => {
                kill_group(&mut driver);
                panic!("chromedriver could not start Chromium: {error}. {MISSING}");
            }
        };
        Browser {
            client,
            driver,
            _profile: profile,
            _turn: turn,
        }
    }

    /// Ends the session (the browser quits), then chromedriver.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }

    /// Adds a WebAuthn virtual authenticator (the WebDriver extension) that verifies its user
    /// when `user_verified`; answers its id.
    pub async fn add_virtual_authenticator(&self, user_verified: bool) -> String {
        let answer = self
            .extension(
                "webauthn/authenticator",
                json!({
                    "protocol": "ctap2",
                    "transport": "internal",
                    "hasResidentKey": true,
                    "hasUserVerification": true,
                    "isUserConsenting": true,
                    "isUserVerified": user_verified,
                }),
            )
            .await;
        answer
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("an authenticator id, got {answer}"))
    }

    /// Loads a credential into the virtual authenticator `id` ("Add Credential").
    pub async fn add_credential(&self, id: &str, credential: Value) {
        self.extension(
            &format!("webauthn/authenticator/{id}/credential"),
            credential,
        )
        .await;
    }

    /// Sets whether the virtual authenticator `id` verifies its user from now on.
    pub async fn set_user_verified(&self, id: &str, user_verified: bool) {
        self.extension(
            &format!("webauthn/authenticator/{id}/uv"),
            json!({ "isUserVerified": user_verified }),
        )
        .await;
    }

    async fn extension(&self, path: &str, body: Value) -> Value {
        let command = Extension {
            path: path.to_owned(),
            body,
        };
        self.client
            .issue_cmd(command)
            .await
            .unwrap_or_else(|error| panic!("chromedriver refused {path}: {error}"))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        kill_group(&mut self.driver);
    }
}

/// A `POST` to a session's extension endpoint (W3C WebAuthn, "Automation").
#[derive(Debug)]
struct Extension {
    path: String,
    body: Value,
}

impl WebDriverCompatibleCommand for Extension {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/{}",
            session.unwrap_or_default(),
            self.path
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

/// chromedriver from `SEAL_TEST_CHROMEDRIVER`, else from the PATH; a test fails without it.
fn chromedriver() -> PathBuf {
    if let Some(path) = std::env::var_os("SEAL_TEST_CHROMEDRIVER") {
        return PathBuf::from(path);
    }
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("chromedriver"))
            .find(|candidate| is_executable(candidate))
    });
    found.unwrap_or_else(|| panic!("chromedriver is not on the PATH. {MISSING}"))
}

/// Debian's Chromium under the name chromedriver does not look for first.
fn chromium() -> Option<&'static str> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|path| is_executable(Path::new(path)))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Reads chromedriver's stdout until it names its port, then keeps draining it.
fn driver_port(driver: &mut Child) -> Result<u16, String> {
    let stdout = driver.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(port) = line
                .split_once("started successfully on port ")
                .and_then(|(_, rest)| rest.trim_end_matches('.').parse::<u16>().ok())
            {
                if let Some(tx) = tx.take() {
                    let _ = tx.send(port);
                }
            }
        }
    });
    rx.recv_timeout(DRIVER_START)
        .map_err(|_| "it did not say which port it listens on".to_owned())
}

/// Kills chromedriver's process group (chromedriver and the browser it started).
fn kill_group(driver: &mut Child) {
    let group = format!("-{}", driver.id());
    let _ = Command::new("kill")
        .args(["-KILL", "--", &group])
        .stderr(Stdio::null())
        .status();
    let _ = driver.kill();
    let _ = driver.wait();
}

/// Runs a test's async body on a runtime of its own.
pub fn run<F: std::future::Future<Output = ()>>(body: F) {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(body);
}

/// Evaluates `script` (a function body; `arguments` holds `args`) in the current page.
pub async fn eval(client: &Client, script: &str, args: Vec<Value>) -> Value {
    client
        .execute(script, args)
        .await
        .unwrap_or_else(|error| panic!("script failed: {error}\n{script}"))
}
