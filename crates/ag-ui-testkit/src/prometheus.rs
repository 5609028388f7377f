//! A Prometheus server of the test's own, scraping one target.
#![allow(
    clippy::panic,
    reason = "test support fails the test by panicking, saying why"
)]

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::net::{LIMIT, free_port, wait_for_port};
use crate::process::{ChildGuard, require, temp_dir};

/// What to install when `prometheus` is missing.
const INSTALL: &str = "install Prometheus: apt-get install prometheus";

/// A `prometheus` on a free loopback port, scraping `target` every second, with its data in
/// a temporary directory; killed by its pid (and the directory removed) when dropped.
#[derive(Debug)]
pub struct PrometheusServer {
    /// The port its web API listens on.
    pub port: u16,
    dir: PathBuf,
    child: Option<ChildGuard>,
}

impl PrometheusServer {
    /// Starts one scraping `http://{target}{path}` (`target` a `host:port`) every second.
    ///
    /// # Panics
    /// When `prometheus` is not installed (saying what to install) or does not listen within
    /// [`LIMIT`].
    #[must_use]
    pub fn start(target: &str, path: &str) -> PrometheusServer {
        let program = require("prometheus", INSTALL);
        let port = free_port();
        let dir = temp_dir("prometheus");
        let config = dir.join("prometheus.yml");
        let yaml = format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: ag-ui\n    metrics_path: {path}\n    \
             static_configs:\n      - targets: [\"{target}\"]\n"
        );
        std::fs::write(&config, yaml)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", config.display()));
        let child = Command::new(program)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start prometheus: {e} ({INSTALL})"));
        let child = ChildGuard(child);
        if let Err(e) = wait_for_port(port, LIMIT, "prometheus") {
            panic!("{e}");
        }
        PrometheusServer {
            port,
            dir,
            child: Some(child),
        }
    }

    /// The URL of an instant query of `promql` (`/api/v1/query?query=…`).
    #[must_use]
    pub fn query_url(&self, promql: &str) -> String {
        let encoded: String = promql
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect();
        format!(
            "http://127.0.0.1:{}/api/v1/query?query={encoded}",
            self.port
        )
    }
}

impl Drop for PrometheusServer {
    fn drop(&mut self) {
        self.child = None;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
