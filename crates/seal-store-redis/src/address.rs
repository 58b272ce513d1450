//! The `redis://host:port/db` URL of a store: parsed strictly, shown without its password.

use std::fmt;

use redis::{ConnectionAddr, ConnectionInfo, IntoConnectionInfo};

use crate::RedisStoreError;

/// The longest URL accepted, in bytes: 1024.
pub const MAX_URL_BYTES: usize = 1024;

/// A parsed store URL: `redis://[[user]:password@]host[:port][/db]` (port 6379 and database 0
/// when left out). Its [`fmt::Display`] and [`fmt::Debug`] never show the user or password.
#[derive(Clone)]
pub struct RedisAddress {
    info: ConnectionInfo,
    host: String,
    port: u16,
    db: u32,
}

impl RedisAddress {
    /// Parses `url`.
    ///
    /// # Errors
    /// [`RedisStoreError::TlsUnsupported`] for `rediss://` (this build has no TLS);
    /// [`RedisStoreError::Url`] for another scheme, a URL longer than [`MAX_URL_BYTES`], a
    /// query or fragment, a database that is not a number from 0 up, or anything the URL
    /// grammar refuses. The error shows the URL with any user and password replaced by `***`.
    pub fn parse(url: &str) -> Result<RedisAddress, RedisStoreError> {
        let refuse = |reason: String| RedisStoreError::Url {
            shown: redacted(url),
            reason,
        };
        if url.len() > MAX_URL_BYTES {
            return Err(refuse(format!(
                "it is {} bytes long, more than {MAX_URL_BYTES}",
                url.len()
            )));
        }
        let scheme = url
            .split_once("://")
            .map(|(scheme, _)| scheme.to_ascii_lowercase());
        match scheme.as_deref() {
            Some("redis") => {}
            Some("rediss") => {
                return Err(RedisStoreError::TlsUnsupported {
                    shown: redacted(url),
                })
            }
            _ => {
                return Err(refuse(
                    "a Redis replay state is given as `redis://host:port/db`".to_owned(),
                ))
            }
        }
        if url.contains('?') || url.contains('#') {
            return Err(refuse(
                "a query (`?`) or fragment (`#`) is not part of a replay state URL".to_owned(),
            ));
        }
        let info = url
            .into_connection_info()
            .map_err(|error| refuse(error.to_string()))?;
        let (host, port) = match &info.addr {
            ConnectionAddr::Tcp(host, port) => (host.clone(), *port),
            _ => return Err(refuse("not a TCP address".to_owned())),
        };
        if host.is_empty() {
            return Err(refuse("no host".to_owned()));
        }
        let db = u32::try_from(info.redis.db)
            .map_err(|_| refuse(format!("database {} is not 0 or more", info.redis.db)))?;
        Ok(RedisAddress {
            info,
            host,
            port,
            db,
        })
    }

    /// The host name or address (an IPv6 address without brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The TCP port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The database number.
    pub fn db(&self) -> u32 {
        self.db
    }

    /// Whether the URL carries a user or a password (never shown).
    pub fn has_credentials(&self) -> bool {
        self.info.redis.username.is_some() || self.info.redis.password.is_some()
    }

    /// The client's connection settings (host, port, database and any credentials), for
    /// another edge crate that opens its own connections to the same server.
    pub fn connection_info(&self) -> &ConnectionInfo {
        &self.info
    }
}

impl fmt::Display for RedisAddress {
    /// `redis://host:port/db`, an IPv6 host in brackets; never a user or password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "redis://[{}]:{}/{}", self.host, self.port, self.db)
        } else {
            write!(f, "redis://{}:{}/{}", self.host, self.port, self.db)
        }
    }
}

impl fmt::Debug for RedisAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisAddress")
            .field("address", &self.to_string())
            .field("has_credentials", &self.has_credentials())
            .finish()
    }
}

/// `url` with everything between `://` and the last `@` of its authority replaced by `***`,
/// so an error message never shows a password.
pub(crate) fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return match url.rsplit_once('@') {
            Some((_, host)) => format!("***@{host}"),
            None => url.to_owned(),
        };
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    // Both offsets come from `find` on the same text, so both slices exist; the fallbacks could
    // only hide more of the URL, never show a password.
    let authority = rest.get(..authority_end).unwrap_or(rest);
    match authority.rfind('@') {
        Some(at) => {
            debug_assert!(rest.is_char_boundary(at), "`@` offset inside a character");
            format!("{scheme}://***{}", rest.get(at..).unwrap_or_default())
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_hides_user_and_password() {
        assert_eq!(
            redacted("redis://user:p@ss@host:1/0"),
            "redis://***@host:1/0"
        );
        assert_eq!(redacted("redis://:secret@h/2"), "redis://***@h/2");
        assert_eq!(redacted("redis://h:1/0"), "redis://h:1/0");
        assert_eq!(redacted("redis://h/0@x"), "redis://h/0@x");
        assert_eq!(redacted("secret@h"), "***@h");
    }

    #[test]
    fn the_address_shows_no_password() {
        let address = RedisAddress::parse("redis://me:hunter2@127.0.0.1:6390/3").unwrap();
        assert_eq!(address.to_string(), "redis://127.0.0.1:6390/3");
        assert!(address.has_credentials());
        assert!(!format!("{address:?}").contains("hunter2"));
        let address = RedisAddress::parse("redis://[::1]:7000").unwrap();
        assert_eq!(address.to_string(), "redis://[::1]:7000/0");
        let address = RedisAddress::parse("REDIS://localhost").unwrap();
        assert_eq!(address.to_string(), "redis://localhost:6379/0");
    }
}
