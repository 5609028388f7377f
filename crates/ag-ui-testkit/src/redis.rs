//! A `redis-server` of the test's own.
#![allow(
    clippy::panic,
    reason = "test support fails the test by panicking, saying why"
)]

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::net::{LIMIT, free_port, wait_for_port};
use crate::process::{ChildGuard, require, temp_dir};

/// What to install when `redis-server` is missing.
const INSTALL: &str = "install Redis: apt-get install redis-server, or brew install redis";

/// A `redis-server` on a free loopback port, persisting nothing, in a temporary directory;
/// killed by its pid (and the directory removed) when dropped.
#[derive(Debug)]
pub struct RedisServer {
    /// The port it listens on (kept across [`kill`](Self::kill) and [`resume`](Self::resume)).
    pub port: u16,
    dir: PathBuf,
    child: Option<ChildGuard>,
}

impl RedisServer {
    /// Starts one.
    ///
    /// # Panics
    /// When `redis-server` is not installed (saying what to install) or does not listen
    /// within [`LIMIT`].
    #[must_use]
    pub fn start() -> RedisServer {
        let mut server = RedisServer {
            port: free_port(),
            dir: temp_dir("redis"),
            child: None,
        };
        server.resume();
        server
    }

    /// Starts the server (again) on its port.
    ///
    /// # Panics
    /// As [`start`](Self::start); or when it is running.
    pub fn resume(&mut self) {
        assert!(self.child.is_none(), "redis-server is running");
        let program = require("redis-server", INSTALL);
        let child = Command::new(program)
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start redis-server: {e} ({INSTALL})"));
        self.child = Some(ChildGuard(child));
        if let Err(e) = wait_for_port(self.port, LIMIT, "redis-server") {
            panic!("{e}");
        }
    }

    /// Stops the server (SIGSTOP, by its pid) as a long fork or a failover would: it keeps
    /// its connections and answers nothing until [`unpause`](Self::unpause).
    ///
    /// # Panics
    /// When it is not running.
    pub fn pause(&self) {
        self.running().signal("-STOP");
    }

    /// Lets a paused server go on (SIGCONT).
    ///
    /// # Panics
    /// When it is not running.
    pub fn unpause(&self) {
        self.running().signal("-CONT");
    }

    /// Kills the server (SIGKILL, by its pid) and waits for it to be gone.
    pub fn kill(&mut self) {
        self.child = None;
    }

    /// `redis://127.0.0.1:{port}/0`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    fn running(&self) -> &ChildGuard {
        self.child
            .as_ref()
            .unwrap_or_else(|| panic!("redis-server on port {} is not running", self.port))
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use super::*;

    fn ping(port: u16) -> String {
        let mut stream =
            TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("connect: {e}"));
        stream
            .set_read_timeout(Some(LIMIT))
            .unwrap_or_else(|e| panic!("{e}"));
        stream
            .write_all(b"PING\r\n")
            .unwrap_or_else(|e| panic!("write: {e}"));
        let mut reply = [0u8; 7];
        stream
            .read_exact(&mut reply)
            .unwrap_or_else(|e| panic!("read: {e}"));
        String::from_utf8_lossy(&reply).into_owned()
    }

    #[test]
    fn it_answers_stops_and_starts_again_on_its_port() {
        let mut server = RedisServer::start();
        assert_eq!(ping(server.port), "+PONG\r\n");
        server.kill();
        assert!(TcpStream::connect(("127.0.0.1", server.port)).is_err());
        server.resume();
        assert_eq!(ping(server.port), "+PONG\r\n");
        assert_eq!(server.url(), format!("redis://127.0.0.1:{}/0", server.port));
    }
}
