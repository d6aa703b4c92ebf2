//! A redis-server of a test's own on a free 127.0.0.1 port (toolsmith-redis's tests and the
//! facade's `tests/it/replicas_http.rs` share it). Needs no Redis client crate.

#![allow(dead_code)] // each test file uses its own part

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

// The module that includes this file includes the skip summary's record too (toolsmith-redis's
// `common`, the facade's `replicas_http`).
use super::skip;

/// A port of 127.0.0.1 nothing listens on (bound and released at once).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("a local address").port()
}

/// A redis-server of the test's own, on 127.0.0.1, without persistence; killed when dropped.
pub struct OwnServer {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
    args: Vec<String>,
}

impl OwnServer {
    /// Starts one on a free port, or `None` (after printing SKIP) when `redis-server` is not on
    /// PATH.
    pub fn start() -> Option<OwnServer> {
        OwnServer::start_with(&[])
    }

    /// [`start`](OwnServer::start) with more arguments for redis-server.
    pub fn start_with(args: &[&str]) -> Option<OwnServer> {
        let found = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            skip::skip(
                skip::Need::Service,
                "redis-server",
                "it is not on PATH; .ci/services.sh installs it",
            );
            return None;
        }
        let port = free_port();
        let dir =
            std::env::temp_dir().join(format!("tool-redis-test-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory for the test server");
        let mut server = OwnServer {
            child: None,
            port,
            dir,
            args: args.iter().map(|a| a.to_string()).collect(),
        };
        server.restart();
        Some(server)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Starts the server (again) on its port and waits for its PONG (at most 10 s).
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "the server is running");
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .args(&self.args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.pong() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "redis-server on port {} did not answer PING within 10 s",
            self.port
        );
    }

    fn pong(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
        // Any answer will do (a server that wants a password answers -NOAUTH).
        let mut reply = [0u8; 1];
        stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut reply).is_ok()
            && matches!(&reply, b"+" | b"-")
    }

    /// Kills the server (SIGKILL: a crash, nothing saved) and waits for it to end.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
