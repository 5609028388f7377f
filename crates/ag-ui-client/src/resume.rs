//! Resumable runs (a non-standard extension the workspace's server offers): resuming a
//! cut run from its last cursor, and stopping a run on the server.

use std::time::Duration;

use ag_ui_core::RunId;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};

use crate::error::ClientError;

/// Default number of consecutive reconnection attempts (without an event arriving in
/// between) before a cut resumable run fails: 5.
pub const DEFAULT_RESUME_ATTEMPTS: u32 = 5;

/// Default wait before the first reconnection attempt: 100 ms, doubled for each further
/// attempt up to [`DEFAULT_RESUME_MAX_BACKOFF`].
pub const DEFAULT_RESUME_BACKOFF: Duration = Duration::from_millis(100);

/// Default longest wait between two reconnection attempts: 2 s.
pub const DEFAULT_RESUME_MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How a run's stream is joined again after a cut.
#[derive(Debug, Clone)]
pub(crate) struct Resume {
    /// Where to join the run (`{agent}/runs/{runId}/events`), once known.
    pub(crate) join: Option<reqwest::Url>,
    /// Derive `join` from the last `RUN_STARTED` when it is not known (thread connect).
    pub(crate) derive: bool,
    /// Attempts since the last event arrived.
    pub(crate) attempts: u32,
    pub(crate) max_attempts: u32,
    pub(crate) backoff: Duration,
    pub(crate) max_backoff: Duration,
    /// Events delivered when the last attempt was made.
    pub(crate) delivered_at: usize,
}

impl Resume {
    pub(crate) fn new(max_attempts: u32, backoff: Duration, max_backoff: Duration) -> Self {
        Resume {
            join: None,
            derive: false,
            attempts: 0,
            max_attempts,
            backoff,
            max_backoff,
            delivered_at: 0,
        }
    }

    /// The wait before attempt `attempt` (1-based).
    pub(crate) fn delay(&self, attempt: u32) -> Duration {
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.backoff.saturating_mul(factor).min(self.max_backoff)
    }
}

/// `base` with `segments` appended as path segments (each escaped).
pub(crate) fn below(base: &reqwest::Url, segments: &[&str]) -> reqwest::Url {
    let mut url = base.clone();
    url.set_query(None);
    url.set_fragment(None);
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty();
        path.extend(segments);
    }
    url
}

/// Stops a run on the server (`POST {agent}/runs/{runId}/stop`, a non-standard extension
/// of the workspace's server): the server trips the run's cancellation, and every stream
/// of the run ends with `RUN_FINISHED` outcome `cancelled` (or `RUN_ERROR` when the agent
/// does not stop in time). From [`HttpRun::stopper`](crate::HttpRun::stopper) or
/// [`HttpAgent::stopper`](crate::HttpAgent::stopper); it holds its own client, so it
/// works while the run is read.
#[derive(Debug, Clone)]
pub struct RunStopper {
    pub(crate) client: reqwest::Client,
    pub(crate) url: reqwest::Url,
    pub(crate) headers: HeaderMap,
    pub(crate) run_id: RunId,
}

impl RunStopper {
    /// The run it stops.
    #[must_use]
    pub fn run_id(&self) -> &RunId {
        &self.run_id
    }

    /// Asks the server to stop the run. `Ok(true)`: the run was running and is stopping;
    /// `Ok(false)`: it had already ended.
    ///
    /// # Errors
    /// [`ClientError::HttpStatus`] when the server refuses (404: no such run, or it
    /// expired, or the server keeps no runs), [`ClientError::Transport`] when it cannot be
    /// reached.
    pub async fn stop(&self) -> Result<bool, ClientError> {
        let url = below(&self.url, &["runs", self.run_id.as_str(), "stop"]);
        let mut headers = self.headers.clone();
        headers.remove(CONTENT_TYPE);
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        let response = self
            .client
            .post(url)
            .headers(headers)
            .send()
            .await
            .map_err(ClientError::transport)?;
        let status = response.status().as_u16();
        match status {
            202 => Ok(true),
            200 => Ok(false),
            _ => Err(crate::error::status_error(
                response,
                crate::error::DEFAULT_MAX_ERROR_BODY_BYTES,
            )
            .await),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::time::Duration;

    use crate::resume::{Resume, below};

    #[test]
    fn backoff_doubles_up_to_its_bound() {
        let r = Resume::new(5, Duration::from_millis(100), Duration::from_millis(500));
        let delays: Vec<u128> = (1..=5).map(|a| r.delay(a).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 500, 500]);
        assert_eq!(r.delay(200), Duration::from_millis(500));
    }

    #[test]
    fn routes_are_below_the_agent_url() {
        let base = reqwest::Url::parse("http://h/agent?x=1").unwrap();
        assert_eq!(
            below(&base, &["runs", "r 1/2", "events"]).as_str(),
            "http://h/agent/runs/r%201%2F2/events"
        );
        let slash = reqwest::Url::parse("http://h/agent/").unwrap();
        assert_eq!(
            below(&slash, &["threads", "t"]).as_str(),
            "http://h/agent/threads/t"
        );
        let root = reqwest::Url::parse("http://h/").unwrap();
        assert_eq!(
            below(&root, &["runs", "r", "stop"]).as_str(),
            "http://h/runs/r/stop"
        );
    }
}
