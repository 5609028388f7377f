//! Loopback ports and bounded waits for a service to listen.
#![allow(
    clippy::panic,
    reason = "test support fails the test by panicking, saying why"
)]

use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// How long any wait of this crate lasts at most.
pub const LIMIT: Duration = Duration::from_secs(20);

/// A free port on `127.0.0.1`: bound, then released for a service to take.
///
/// # Panics
/// When no port can be bound on the loopback interface.
#[must_use]
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0")
        .unwrap_or_else(|e| panic!("cannot bind a port on 127.0.0.1: {e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("the bound port has no address: {e}"))
        .port()
}

/// Waits until something accepts connections on `127.0.0.1:port`, at most `limit`.
///
/// # Errors
/// `what` did not listen within `limit`.
pub fn wait_for_port(port: u16, limit: Duration, what: &str) -> Result<(), String> {
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if started.elapsed() > limit {
            return Err(format!(
                "{what} did not listen on 127.0.0.1:{port} within {limit:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listening_port_is_seen_and_a_closed_one_times_out() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let port = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("{e}"))
            .port();
        assert_eq!(wait_for_port(port, LIMIT, "the listener"), Ok(()));
        drop(listener);
        let closed = free_port();
        let error = wait_for_port(closed, Duration::from_millis(50), "nothing")
            .expect_err("nothing listens there");
        assert!(error.contains(&format!("127.0.0.1:{closed}")), "{error}");
    }
}
