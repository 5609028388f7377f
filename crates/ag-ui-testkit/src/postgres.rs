//! A PostgreSQL server of the test's own: `initdb` into a temporary directory, `postgres`
//! on a free loopback port, stopped by its pid.
#![allow(
    clippy::panic,
    reason = "test support fails the test by panicking, saying why"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::net::{LIMIT, free_port, wait_for_port};
use crate::process::{ChildGuard, require, send, temp_dir};

/// What to install when a PostgreSQL binary is missing.
const INSTALL: &str = "install PostgreSQL 15 or later so that initdb and postgres are on the \
                       PATH or in /usr/lib/postgresql/VERSION/bin: apt-get install postgresql, \
                       or brew install postgresql";

/// Where Debian's packages put the server's programs: `/usr/lib/postgresql/VERSION/bin`.
const DEBIAN_DIR: &str = "/usr/lib/postgresql";

/// A PostgreSQL program: on the `PATH`, else from the newest version Debian's packages
/// installed (they leave `initdb` and `postgres` off the `PATH`).
///
/// # Panics
/// When it is in neither place, saying what to install.
fn binary(program: &str) -> PathBuf {
    let on_path = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(program))
        .find(|p| p.is_file());
    if let Some(found) = on_path {
        return found;
    }
    let newest = std::fs::read_dir(DEBIAN_DIR)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version: u32 = entry.file_name().to_str()?.parse().ok()?;
            let path = entry.path().join("bin").join(program);
            path.is_file().then_some((version, path))
        })
        .max();
    match newest {
        Some((_, path)) => path,
        None => require(program, INSTALL),
    }
}

/// The user PostgreSQL runs as when the tests run as root (it refuses to run as root).
const UNPRIVILEGED: &str = "postgres";

/// A PostgreSQL server on a free loopback port, its data in a temporary directory, with
/// one database `postgres` and a superuser `postgres` trusted without a password; stopped
/// (SIGINT, then SIGKILL after a bounded wait) by its pid and the directory removed when
/// dropped.
#[derive(Debug)]
pub struct Postgres {
    /// The port it listens on.
    pub port: u16,
    dir: PathBuf,
    child: Option<ChildGuard>,
}

impl Postgres {
    /// Creates a cluster and starts the server.
    ///
    /// # Panics
    /// When `initdb` or `postgres` is missing (saying what to install), the cluster cannot
    /// be created, or the server does not listen within [`LIMIT`].
    #[must_use]
    pub fn start() -> Postgres {
        Self::start_with(false)
    }

    /// As [`start`](Self::start), with TLS on (`ssl=on`): a self-signed certificate for
    /// `localhost`, made with `openssl` in the cluster's directory. Clients may still
    /// connect without TLS.
    ///
    /// # Panics
    /// As [`start`](Self::start), and when `openssl` is missing or fails.
    #[must_use]
    pub fn start_tls() -> Postgres {
        Self::start_with(true)
    }

    fn start_with(tls: bool) -> Postgres {
        let initdb = binary("initdb");
        let postgres = binary("postgres");
        let dir = temp_dir("postgres");
        let data = dir.join("data");
        let root = is_root();
        if root {
            let status = Command::new("chown")
                .arg("-R")
                .arg(format!("{UNPRIVILEGED}:"))
                .arg(&dir)
                .status()
                .unwrap_or_else(|e| panic!("cannot run chown: {e}"));
            assert!(status.success(), "chown {UNPRIVILEGED} {}", dir.display());
        }
        let output = as_user(root, &initdb)
            .args([
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(&data)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run initdb: {e} ({INSTALL})"));
        assert!(
            output.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let mut tls_args = Vec::new();
        if tls {
            let (cert, key) = self_signed(&data, root);
            tls_args = vec![
                "-c".to_owned(),
                "ssl=on".to_owned(),
                "-c".to_owned(),
                format!("ssl_cert_file={}", cert.display()),
                "-c".to_owned(),
                format!("ssl_key_file={}", key.display()),
            ];
        }
        let port = free_port();
        let child = as_user(root, &postgres)
            .arg("-D")
            .arg(&data)
            .args(["-p", &port.to_string(), "-h", "127.0.0.1", "-k"])
            .arg(&dir)
            .args(["-c", "fsync=off", "-c", "full_page_writes=off"])
            .args(&tls_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start postgres: {e} ({INSTALL})"));
        let server = Postgres {
            port,
            dir,
            child: Some(ChildGuard(child)),
        };
        if let Err(e) = wait_for_port(port, LIMIT, "postgres") {
            panic!("{e}");
        }
        server
    }

    /// `postgres://postgres@127.0.0.1:{port}/postgres`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// The directory of the cluster and its socket.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stops the server: SIGINT (a fast shutdown) by its pid, then SIGKILL if it is still
    /// there after a bounded wait.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            send(child.id(), "-INT");
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(10) {
                if matches!(child.0.try_wait(), Ok(Some(_))) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            drop(child);
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A self-signed certificate and its key for `localhost` in `dir` (the key readable by
/// the server's user alone, as PostgreSQL demands).
fn self_signed(dir: &Path, root: bool) -> (PathBuf, PathBuf) {
    let openssl = require("openssl", "apt-get install openssl");
    let cert = dir.join("server.crt");
    let key = dir.join("server.key");
    let output = Command::new(openssl)
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=localhost", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run openssl: {e}"));
    assert!(
        output.status.success(),
        "openssl req failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    if root {
        let status = Command::new("chown")
            .arg(format!("{UNPRIVILEGED}:"))
            .arg(&cert)
            .arg(&key)
            .status()
            .unwrap_or_else(|e| panic!("cannot run chown: {e}"));
        assert!(status.success(), "chown {UNPRIVILEGED} {}", key.display());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
            .unwrap_or_else(|e| panic!("chmod 600 {}: {e}", key.display()));
    }
    (cert, key)
}

/// Whether this process runs as root (PostgreSQL refuses to).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `program`, run as the unprivileged user when `root` (with `setpriv`, which execs, so the
/// pid is the program's own).
fn as_user(root: bool, program: &Path) -> Command {
    if root {
        let setpriv = require("setpriv", "install util-linux");
        let mut command = Command::new(setpriv);
        command
            .args([
                "--reuid",
                UNPRIVILEGED,
                "--regid",
                UNPRIVILEGED,
                "--init-groups",
                "--",
            ])
            .arg(program);
        command
    } else {
        Command::new(program)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use super::*;

    #[test]
    fn it_speaks_the_postgres_protocol_and_is_gone_when_dropped() {
        let server = Postgres::start();
        let port = server.port;
        let mut stream =
            TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("connect: {e}"));
        stream
            .set_read_timeout(Some(LIMIT))
            .unwrap_or_else(|e| panic!("{e}"));
        // An SSLRequest: a server without TLS answers `N`.
        stream
            .write_all(&[0, 0, 0, 8, 4, 210, 22, 47])
            .unwrap_or_else(|e| panic!("write: {e}"));
        let mut answer = [0u8; 1];
        stream
            .read_exact(&mut answer)
            .unwrap_or_else(|e| panic!("read: {e}"));
        assert_eq!(&answer, b"N");
        assert!(server.dir().join("data").join("PG_VERSION").is_file());
        let dir = server.dir().to_owned();
        drop(stream);
        drop(server);
        assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
        assert!(!dir.exists());
    }
}
