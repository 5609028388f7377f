//! An AG-UI agent served on a loopback port, in the test's tokio runtime.
#![allow(
    clippy::panic,
    reason = "test support fails the test by panicking, saying why"
)]

use std::future::Future;
use std::net::SocketAddr;

use ag_ui_server::{Agent, AgentService};

/// A server on `127.0.0.1`: its task is aborted when dropped.
#[derive(Debug)]
pub struct Server {
    /// The address it listens on.
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    /// A server already listening on `addr`, served by `serving` (spawned on the current
    /// tokio runtime).
    #[must_use]
    pub fn spawn(addr: SocketAddr, serving: impl Future<Output = ()> + Send + 'static) -> Self {
        Server {
            addr,
            task: tokio::spawn(serving),
        }
    }

    /// `http://{addr}/`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The join route of run `run`: `http://{addr}/runs/{run}/events`.
    #[must_use]
    pub fn events_url(&self, run: &str) -> String {
        format!("{}runs/{run}/events", self.url())
    }
}

/// Serves `service` with axum on a free loopback port.
///
/// # Panics
/// When no loopback port can be bound.
pub async fn serve_agent<A: Agent>(service: AgentService<A>) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("cannot bind 127.0.0.1: {e}"));
    let addr = listener
        .local_addr()
        .unwrap_or_else(|e| panic!("the listener has no address: {e}"));
    let router = ag_ui_server::axum::service_router(service);
    Server::spawn(addr, async move {
        if let Err(e) = ag_ui_server::axum::serve(listener, router).await {
            panic!("the server on {addr} failed: {e}");
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_served_agent_answers_on_loopback_and_is_gone_when_dropped() {
        let server = serve_agent(AgentService::new(ag_ui_server::demo::DemoAgent::new())).await;
        assert!(server.addr.ip().is_loopback());
        assert_eq!(
            server.events_url("r"),
            format!("http://{}/runs/r/events", server.addr)
        );
        let addr = server.addr;
        let connected = tokio::net::TcpStream::connect(addr).await;
        assert!(connected.is_ok(), "{connected:?}");
        drop(connected);
        drop(server);
        tokio::task::yield_now().await;
        let mut refused = false;
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(addr).await.is_err() {
                refused = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(refused, "{addr} still accepts connections");
    }
}
