//! The errors: [`ConnectError`] when the store cannot be set up, and the [`BackendError`]s of its
//! steps, each saying what happened to the step (not applied, or outcome unknown) and what to do.

use redis::{ErrorKind, RedisError};
use std::time::Duration;
use toolsmith_core::BackendError;

/// Why a [`RedisStateStore`](crate::RedisStateStore) could not connect: the URL does not parse,
/// nothing listens there, the server does not answer within the connect or response timeout,
/// it refuses the credentials, or it cannot run the store's scripts.
///
/// One line, naming the URL without its password:
/// `could not connect to Redis at redis://:***@127.0.0.1:6390/: connection refused (...)`.
#[derive(Debug, thiserror::Error)]
#[error("could not connect to Redis at {url}: {reason}")]
pub struct ConnectError {
    url: String,
    reason: String,
}

impl ConnectError {
    pub(crate) fn new(url: String, reason: String) -> Self {
        ConnectError { url, reason }
    }

    /// The URL the store was given, with its password (if any) replaced by `***`.
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// `url` with the password of its user part and of a `pass`/`password` query parameter replaced
/// by `***`; a URL that does not parse is redacted the same way.
pub(crate) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        // Not a URL: whatever precedes an `@` may be a password.
        return match url.rfind('@') {
            Some(at) => format!("***{}", redact_query(&url[at..])),
            None => redact_query(url),
        };
    };
    // The user part ends at the last `@` (a password may hold `/`, `?` or `#` unescaped).
    let (userinfo, host_and_rest) = match rest.rfind('@') {
        Some(at) => rest.split_at(at),
        None => ("", rest),
    };
    let userinfo = match userinfo.split_once(':') {
        Some((user, _)) => format!("{user}:***"),
        None => userinfo.to_string(),
    };
    format!("{scheme}://{userinfo}{}", redact_query(host_and_rest))
}

fn redact_query(s: &str) -> String {
    let Some((head, query)) = s.split_once('?') else {
        return s.to_string();
    };
    let params: Vec<String> = query
        .split('&')
        .map(|p| match p.split_once('=') {
            Some((name, _))
                if name.eq_ignore_ascii_case("pass") || name.eq_ignore_ascii_case("password") =>
            {
                format!("{name}=***")
            }
            _ => p.to_string(),
        })
        .collect();
    format!("{head}?{}", params.join("&"))
}

/// `text` with every occurrence of `secret` (when there is one) replaced by `***`.
pub(crate) fn scrub(text: String, secret: Option<&str>) -> String {
    match secret {
        Some(s) if !s.is_empty() => text.replace(s, "***"),
        _ => text,
    }
}

/// The reason a connect failed, for [`ConnectError`].
pub(crate) fn connect_reason(e: &RedisError, timeout: Duration, attempts: usize) -> String {
    let tries = if attempts == 1 {
        String::new()
    } else {
        format!(", {attempts} attempts")
    };
    if e.is_timeout() {
        format!("no answer within {timeout:?}{tries} (is it a Redis server, and reachable?)")
    } else if e.is_connection_refusal() {
        format!("connection refused{tries} (is the server running, and is the port right?)")
    } else if e.code() == Some("NOPERM") {
        format!("the user may not run the store's commands: {e} ({ACL})")
    } else if e.kind() == ErrorKind::AuthenticationFailed || is_auth_code(e) {
        format!("the server refused the credentials: {e} (check the URL's user and password)")
    } else if e.kind() == ErrorKind::InvalidClientConfig {
        format!(
            "the URL does not parse ({e}); expected redis://[[user]:password@]host[:port][/db] \
             (valkey:// alike)"
        )
    } else {
        format!("{e}{tries}")
    }
}

/// What the store's user must be allowed to run.
const ACL: &str = "the user's ACL must allow GET, SET, HGETALL, EVALSHA and SCRIPT LOAD, and \
                   inside the scripts DEL, PEXPIRE, PTTL, EXISTS, TYPE, HMGET and HSET";

fn is_auth_code(e: &RedisError) -> bool {
    matches!(e.code(), Some("NOAUTH" | "WRONGPASS" | "NOPERM"))
}

/// Where a step went: the server's (redacted) URL and the response timeout, for the messages.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub(crate) url: String,
    pub(crate) response_timeout: Duration,
}

impl Site {
    /// The [`BackendError`] of `step` (`"claim of `key`"`, ...) failing with `e`.
    pub(crate) fn error(&self, step: &str, e: &RedisError) -> BackendError {
        let url = &self.url;
        let message = if e.is_timeout() {
            format!(
                "Redis at {url} did not answer the {step} within {:?}: the outcome of this step \
                 is unknown (the server may have applied it)",
                self.response_timeout
            )
        } else if e.is_connection_refusal() {
            format!(
                "Redis at {url} refused the connection for the {step} (is the server running?): \
                 the step was not applied; the store reconnects by itself when the server is back"
            )
        } else if e.is_io_error() || e.is_connection_dropped() {
            format!(
                "the connection to Redis at {url} dropped during the {step} ({e}): the outcome \
                 of this step is unknown; the store reconnects by itself"
            )
        } else if e.kind() == ErrorKind::AuthenticationFailed || is_auth_code(e) {
            format!(
                "Redis at {url} refused the {step}: {e} (check the URL's user and password; {ACL})"
            )
        } else {
            match e.code() {
                Some("READONLY") => format!(
                    "Redis at {url} is a read-only replica and refused the {step}: point the \
                     store at the primary"
                ),
                Some("OOM") => format!(
                    "Redis at {url} is out of memory (maxmemory) and refused the {step}: the \
                     step was not applied"
                ),
                Some("LOADING") => format!(
                    "Redis at {url} is loading its data set and refused the {step}: try again \
                     shortly"
                ),
                Some("BUSY") => format!(
                    "Redis at {url} is busy running a script and refused the {step}: try again \
                     shortly"
                ),
                Some(_) => format!("Redis at {url} answered the {step} with an error: {e}"),
                None => format!("Redis at {url} gave an unexpected answer to the {step}: {e}"),
            }
        };
        BackendError::new(message)
    }

    /// The [`BackendError`] of a key that holds something this store did not write.
    pub(crate) fn foreign(&self, key: &str, kind: &str) -> BackendError {
        let expected = match kind {
            crate::record::OUTCOME => "an outcome",
            crate::record::KEPT => "a kept value",
            crate::record::RECORD => "a versioned record",
            _ => "a lease",
        };
        BackendError::new(format!(
            "Redis key `{key}` at {} holds a value that is not a toolsmith record (expected \
             {expected} written by toolsmith-redis): remove it, or give the store a prefix no other \
             program writes under",
            self.url
        ))
    }

    /// The [`BackendError`] of a script answer this crate does not know.
    pub(crate) fn unexpected(&self, step: &str, tag: &str) -> BackendError {
        BackendError::new(format!(
            "Redis at {} gave an unexpected answer `{tag}` to the {step}: is another version of \
             toolsmith-redis using the same prefix?",
            self.url
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted_from_urls() {
        for (url, shown) in [
            ("redis://127.0.0.1:6379/", "redis://127.0.0.1:6379/"),
            (
                "redis://:s3cret@127.0.0.1:6379/0",
                "redis://:***@127.0.0.1:6379/0",
            ),
            (
                "redis://app:s3cret@cache:6379",
                "redis://app:***@cache:6379",
            ),
            ("valkey://app:s3/c?r#et@cache", "valkey://app:***@cache"),
            ("redis://app@cache", "redis://app@cache"),
            (
                "redis+unix:///run/redis.sock?db=1&pass=s3cret",
                "redis+unix:///run/redis.sock?db=1&pass=***",
            ),
            ("not a url :s3cret@host", "***@host"),
            ("cache?password=s3cret", "cache?password=***"),
        ] {
            assert_eq!(redact_url(url), shown, "{url}");
        }
        assert_eq!(
            scrub("auth s3cret failed".into(), Some("s3cret")),
            "auth *** failed"
        );
        assert_eq!(scrub("as is".into(), Some("")), "as is");
    }
}
