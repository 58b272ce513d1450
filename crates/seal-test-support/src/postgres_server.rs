//! The PostgreSQL server of the fleet-log tests: `SEAL_TEST_POSTGRES` names it (for example
//! `postgres://postgres@127.0.0.1:5433/postgres`, a role that may create schemas and roles); a
//! test needing it fails, saying how to start one, when the variable is unset or the server
//! does not answer. Each test works in a schema of its own, dropped with the roles it created
//! when the test ends, so tests run in parallel.

#![allow(clippy::panic)]

use std::sync::atomic::{AtomicU32, Ordering};

/// How to give the tests a server.
pub const HOW_TO: &str = "the fleet-log tests need a PostgreSQL server: run the tests with \
    `bash scripts/test` (it installs, starts and stops one), or start one of your own and set \
    SEAL_TEST_POSTGRES=postgres://USER@127.0.0.1:PORT/DATABASE (a role that may create \
    schemas and roles)";

/// The test server's URL.
///
/// # Panics
///
/// With [`HOW_TO`] when `SEAL_TEST_POSTGRES` is unset or the server does not answer.
pub fn server() -> String {
    let url = match std::env::var("SEAL_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!("SEAL_TEST_POSTGRES is not set: {HOW_TO}"),
    };
    if let Err(error) = connect(&url).and_then(|mut client| client.simple_query("SELECT 1")) {
        panic!("SEAL_TEST_POSTGRES=`{url}` does not answer ({error}): {HOW_TO}");
    }
    url
}

/// A connection to `url`, without TLS.
pub fn connect(url: &str) -> Result<postgres::Client, postgres::Error> {
    postgres::Client::connect(url, postgres::NoTls)
}

/// A schema of one test's own on the test server, dropped (with everything in it and the
/// roles made by [`TestSchema::role`]) on drop.
pub struct TestSchema {
    server: String,
    name: String,
    roles: Vec<String>,
}

impl TestSchema {
    /// Creates a fresh, empty schema whose name starts with `label` (lowercase letters, digits
    /// and `_`, a few characters).
    ///
    /// # Panics
    ///
    /// As [`server`], and when the schema cannot be created.
    pub fn new(label: &str) -> TestSchema {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let server = server();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.subsec_nanos())
            .unwrap_or(0);
        let label: String = label
            .chars()
            .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
            .take(20)
            .collect();
        let name = format!(
            "t_{label}_{}_{}_{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let schema = TestSchema {
            server,
            name,
            roles: Vec::new(),
        };
        schema.admin(&format!("CREATE SCHEMA {}", schema.name));
        schema
    }

    /// The schema's name (needs no quoting).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The server URL as the administering role, working in this schema.
    pub fn url(&self) -> String {
        with_search_path(&self.server, &self.name)
    }

    /// Creates a login role named after the schema and `suffix`, with no rights but the
    /// database's defaults, and returns the URL that connects as it, working in this schema.
    ///
    /// # Panics
    ///
    /// When the role cannot be created or the URL has no host part.
    pub fn role(&mut self, suffix: &str) -> String {
        let role = format!("{}_{suffix}", self.name);
        let password = format!("pw{}", std::process::id());
        self.admin(&format!("CREATE ROLE {role} LOGIN PASSWORD '{password}'"));
        self.roles.push(role.clone());
        let rest = self
            .server
            .strip_prefix("postgres://")
            .or_else(|| self.server.strip_prefix("postgresql://"))
            .unwrap_or_else(|| panic!("SEAL_TEST_POSTGRES must be a postgres:// URL: {HOW_TO}"));
        let (authority, path) = rest.split_once('/').unwrap_or((rest, "postgres"));
        let host = authority
            .rsplit_once('@')
            .map_or(authority, |(_, host)| host);
        with_search_path(
            &format!("postgres://{role}:{password}@{host}/{path}"),
            &self.name,
        )
    }

    /// Runs `sql` as the administering role.
    ///
    /// # Panics
    ///
    /// When it fails.
    pub fn admin(&self, sql: &str) {
        let result = connect(&self.server).and_then(|mut client| client.batch_execute(sql));
        if let Err(error) = result {
            panic!("`{sql}` failed on the test server: {error:?}");
        }
    }
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        let mut sql = format!("DROP SCHEMA IF EXISTS {} CASCADE;", self.name);
        for role in &self.roles {
            sql.push_str(&format!(
                "DROP OWNED BY {role}; DROP ROLE IF EXISTS {role};"
            ));
        }
        if let Ok(mut client) = connect(&self.server) {
            let _ = client.batch_execute(&sql);
        }
    }
}

/// `url` with `search_path` set to `schema` for every connection made with it.
fn with_search_path(url: &str, schema: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-csearch_path%3D{schema}")
}
