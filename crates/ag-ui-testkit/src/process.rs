//! Child processes stopped by their pid, and a serving binary that prints its address.
#![allow(
    clippy::panic,
    reason = "test support fails the test by panicking, saying why"
)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::net::LIMIT;

/// A child process, killed (SIGKILL, by its pid) and waited for when dropped.
#[derive(Debug)]
#[allow(
    clippy::exhaustive_structs,
    reason = "a plain wrapper, built from the child"
)]
pub struct ChildGuard(pub Child);

impl ChildGuard {
    /// The process id.
    #[must_use]
    pub fn id(&self) -> u32 {
        self.0.id()
    }

    /// Sends `signal` (`-STOP`, `-CONT`, `-INT`...) to the process by its pid.
    ///
    /// # Panics
    /// When `kill` cannot be run or fails.
    pub fn signal(&self, signal: &str) {
        send(self.0.id(), signal);
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends `signal` to process `pid` with `kill`.
///
/// # Panics
/// When `kill` cannot be run or fails.
pub fn send(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(signal)
        .arg(pid.to_string())
        .status()
        .unwrap_or_else(|e| panic!("cannot run kill {signal} {pid}: {e}"));
    assert!(status.success(), "kill {signal} {pid} failed: {status}");
}

/// The path of `program` on the `PATH`, or a panic that says what to install.
///
/// # Panics
/// When `program` is not on the `PATH`: tests that need a service never skip silently.
#[must_use]
pub fn require(program: &str, install: &str) -> PathBuf {
    if Path::new(program).is_absolute() && Path::new(program).is_file() {
        return PathBuf::from(program);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{program} is not on the PATH: this test needs it ({install})"))
}

/// An example binary of the crate under test (`cargo test` builds the examples next to the
/// test binary, in `target/<profile>/examples`).
///
/// # Panics
/// When the binary is missing, with the command that builds it.
#[must_use]
pub fn example_binary(name: &str, package: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("no test binary path: {e}"));
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| panic!("{} has no target directory", exe.display()));
    let path = dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: run `cargo test -p {package}` (it builds the examples) or \
         `cargo build -p {package} --example {name}` first",
        path.display()
    );
    path
}

/// A serving binary started as `program <addr> <args...>` that prints the address it
/// listens on as its first line (`127.0.0.1:0` for a free port, then kept across restarts);
/// killed by its pid when dropped.
#[derive(Debug)]
pub struct ServeProcess {
    /// The address it listens on, as it printed it.
    pub addr: String,
    program: PathBuf,
    args: Vec<String>,
    /// The working directory it runs in (the test's own when `None`).
    dir: Option<PathBuf>,
    child: Option<ChildGuard>,
}

impl ServeProcess {
    /// Starts `program` on `addr` with `args`.
    ///
    /// # Panics
    /// When it does not start and print its address within [`LIMIT`].
    #[must_use]
    pub fn start(program: impl Into<PathBuf>, addr: &str, args: &[&str]) -> ServeProcess {
        let mut p = ServeProcess {
            addr: addr.to_owned(),
            program: program.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            dir: None,
            child: None,
        };
        p.restart();
        p
    }

    /// Starts `program` on `addr` with `args`, in the working directory `dir` (kept across
    /// restarts: for relative paths in `args`).
    ///
    /// # Panics
    /// As [`start`](Self::start).
    #[must_use]
    pub fn start_in(
        dir: impl Into<PathBuf>,
        program: impl Into<PathBuf>,
        addr: &str,
        args: &[&str],
    ) -> ServeProcess {
        let mut p = ServeProcess {
            addr: addr.to_owned(),
            program: program.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            dir: Some(dir.into()),
            child: None,
        };
        p.restart();
        p
    }

    /// The process id, while it runs.
    #[must_use]
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(ChildGuard::id)
    }

    /// Starts the process (again, on the address it had).
    ///
    /// # Panics
    /// When it is running, or does not start within [`LIMIT`].
    pub fn restart(&mut self) {
        assert!(
            self.child.is_none(),
            "{} is running",
            self.program.display()
        );
        let started = Instant::now();
        loop {
            let mut command = Command::new(&self.program);
            if let Some(dir) = &self.dir {
                command.current_dir(dir);
            }
            let mut child = command
                .arg(&self.addr)
                .args(&self.args)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.program.display()));
            let line = child.stdout.take().map(|stdout| {
                let mut line = String::new();
                let _ =
                    std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line);
                line.trim().to_owned()
            });
            if let Some(line) = line.filter(|l| !l.is_empty()) {
                self.addr = line;
                self.child = Some(ChildGuard(child));
                return;
            }
            // The address is not free yet (a restart right after a kill): try again.
            let _ = child.kill();
            let _ = child.wait();
            assert!(
                started.elapsed() < LIMIT,
                "{} did not start on {}",
                self.program.display(),
                self.addr
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGKILL, by its pid: no clean shutdown.
    pub fn kill(&mut self) {
        self.child = None;
    }

    /// `http://{addr}/`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

/// A fresh directory under the system's temporary directory, named after `what`, this
/// process and a counter.
///
/// # Panics
/// When it cannot be created.
#[must_use]
pub fn temp_dir(what: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ag-ui-{what}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(
        expected = "no-such-program-here is not on the PATH: this test needs it (install it)"
    )]
    fn a_missing_program_is_a_clear_panic() {
        let _ = require("no-such-program-here", "install it");
    }

    #[test]
    fn a_child_is_killed_by_its_pid_when_dropped() {
        let child = Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let pid = child.id();
        drop(ChildGuard(child));
        let alive = Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!alive.success(), "process {pid} is still there");
    }
}
