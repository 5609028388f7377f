//! Typed calls of the threads API (the workspace server's extension below the agent path):
//! list a principal's threads page by page, read one, rename, archive, change its
//! metadata, delete it.

use std::collections::VecDeque;
use std::time::Duration;

use ag_ui_core::{Event, SseReader};
use futures_util::StreamExt;

use ag_ui_core::api::{ThreadDetail, ThreadPage, ThreadPatch, ThreadQuery, ThreadSummary};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::{Map, Value};

use crate::error::{ClientError, status_error};
use crate::resume::below;

/// The threads API of one agent (`GET {agent}/threads`, `GET`, `PATCH` and `DELETE
/// {agent}/threads/{threadId}`), from [`HttpAgent::threads`](crate::HttpAgent::threads):
/// it sends the agent's headers (its bearer token, say), so it sees the threads of the
/// principal they name.
///
/// A refusal is [`ClientError::HttpStatus`] with the server's JSON body: 404 for a thread
/// the principal does not have (unknown, deleted, or another principal's), 409 for a
/// delete while a run goes on, 400 for a bad query or change.
#[derive(Debug, Clone)]
pub struct ThreadsApi {
    pub(crate) client: reqwest::Client,
    pub(crate) url: reqwest::Url,
    pub(crate) headers: HeaderMap,
    pub(crate) max_error_body: usize,
}

impl ThreadsApi {
    /// One page of the principal's threads, most recently updated first.
    ///
    /// # Errors
    /// [`ClientError::HttpStatus`] for a refusal (400 for a cursor no page gave),
    /// [`ClientError::Transport`] when the server cannot be reached, [`ClientError::Schema`
    /// kind](crate::ClientErrorKind) when the answer is no thread page.
    pub async fn list(&self, query: &ThreadQuery) -> Result<ThreadPage, ClientError> {
        let mut url = below(&self.url, &["threads"]);
        url.set_query(Some(&query.to_query()));
        self.call(reqwest::Method::GET, url, None).await
    }

    /// Every thread the query selects, page after page (following `nextCursor` from the
    /// query's cursor on), as an iterator whose [`next`](ThreadPager::next) is async.
    #[must_use]
    pub fn pages(&self, query: ThreadQuery) -> ThreadPager {
        ThreadPager {
            api: self.clone(),
            query,
            buffered: VecDeque::new(),
            done: false,
        }
    }

    /// The thread: its summary, messages, state and runs.
    ///
    /// # Errors
    /// [`ClientError::HttpStatus`] 404 when the principal has no such thread; as
    /// [`list`](Self::list).
    pub async fn get(&self, thread_id: &str) -> Result<ThreadDetail, ClientError> {
        let url = below(&self.url, &["threads", thread_id]);
        self.call(reqwest::Method::GET, url, None).await
    }

    /// Changes the thread's title, metadata or archived flag as `patch` says; the new
    /// summary.
    ///
    /// # Errors
    /// As [`get`](Self::get).
    pub async fn update(
        &self,
        thread_id: &str,
        patch: &ThreadPatch,
    ) -> Result<ThreadSummary, ClientError> {
        let url = below(&self.url, &["threads", thread_id]);
        let body = serde_json::to_vec(patch)
            .map_err(|e| ClientError::invalid_request(format!("the change: {e}")))?;
        self.call(reqwest::Method::PATCH, url, Some(body)).await
    }

    /// Sets (or, with `None`, clears) the thread's title.
    ///
    /// # Errors
    /// As [`get`](Self::get).
    pub async fn rename(
        &self,
        thread_id: &str,
        title: Option<&str>,
    ) -> Result<ThreadSummary, ClientError> {
        let patch = ThreadPatch::new().title(title.map(str::to_owned));
        self.update(thread_id, &patch).await
    }

    /// Archives (`true`) or restores (`false`) the thread.
    ///
    /// # Errors
    /// As [`get`](Self::get).
    pub async fn archive(
        &self,
        thread_id: &str,
        archived: bool,
    ) -> Result<ThreadSummary, ClientError> {
        self.update(thread_id, &ThreadPatch::new().archived(archived))
            .await
    }

    /// Replaces the thread's metadata.
    ///
    /// # Errors
    /// As [`get`](Self::get).
    pub async fn set_metadata(
        &self,
        thread_id: &str,
        metadata: Map<String, Value>,
    ) -> Result<ThreadSummary, ClientError> {
        self.update(thread_id, &ThreadPatch::new().metadata(metadata))
            .await
    }

    /// Deletes the thread with its runs.
    ///
    /// # Errors
    /// [`ClientError::HttpStatus`] 409 while a run goes on on it, 404 when the principal
    /// has no such thread; [`ClientError::Transport`].
    pub async fn delete(&self, thread_id: &str) -> Result<(), ClientError> {
        let url = below(&self.url, &["threads", thread_id]);
        let response = self.send(reqwest::Method::DELETE, url, None).await?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(status_error(response, self.max_error_body).await)
        }
    }

    /// Follows the thread (`GET {agent}/threads/{threadId}/events`): every run started on
    /// it from now on (once this returns, the server has the follow), by any client on
    /// any instance of the service, each from `RUN_STARTED` to its terminal event. A cut
    /// connection is resumed from the last event's id (`Last-Event-ID`), so nothing is
    /// missed or repeated, up to [`FOLLOW_RECONNECTS`] times in a row.
    ///
    /// # Errors
    /// As [`ThreadFollow::next`], for the first connection.
    pub async fn follow(&self, thread_id: &str) -> Result<ThreadFollow, ClientError> {
        self.follow_after(thread_id, None).await
    }

    /// [`follow`](Self::follow) resuming after the event whose id is `last_event_id` (a
    /// [`FollowedEvent::id`] from an earlier follow, [`ThreadFollow::last_event_id`]).
    ///
    /// # Errors
    /// As [`follow`](Self::follow).
    pub async fn follow_after(
        &self,
        thread_id: &str,
        last_event_id: Option<String>,
    ) -> Result<ThreadFollow, ClientError> {
        let mut follow = ThreadFollow {
            api: self.clone(),
            url: below(&self.url, &["threads", thread_id, "events"]),
            last_id: last_event_id,
            body: None,
            reader: SseReader::new(),
            failures: 0,
        };
        follow.connect().await?;
        Ok(follow)
    }

    async fn send(
        &self,
        method: reqwest::Method,
        url: reqwest::Url,
        body: Option<Vec<u8>>,
    ) -> Result<reqwest::Response, ClientError> {
        let mut headers = self.headers.clone();
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        headers.remove(CONTENT_TYPE);
        let mut request = self.client.request(method, url);
        if let Some(body) = body {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            request = request.body(body);
        }
        request
            .headers(headers)
            .send()
            .await
            .map_err(ClientError::transport)
    }

    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        method: reqwest::Method,
        url: reqwest::Url,
        body: Option<Vec<u8>>,
    ) -> Result<T, ClientError> {
        let response = self.send(method, url, body).await?;
        if !response.status().is_success() {
            return Err(status_error(response, self.max_error_body).await);
        }
        let bytes = response.bytes().await.map_err(ClientError::transport)?;
        serde_json::from_slice(&bytes).map_err(|e| {
            ClientError::invalid_answer(format!(
                "the threads API's answer is not what the route returns: {e}"
            ))
        })
    }
}

/// The threads a query selects, page after page: from [`ThreadsApi::pages`].
#[derive(Debug)]
pub struct ThreadPager {
    api: ThreadsApi,
    query: ThreadQuery,
    buffered: VecDeque<ThreadSummary>,
    done: bool,
}

impl ThreadPager {
    /// The next thread, `None` after the last; a page is fetched when the previous one is
    /// used up.
    ///
    /// # Errors
    /// As [`ThreadsApi::list`]; the pager ends after an error.
    pub async fn next(&mut self) -> Option<Result<ThreadSummary, ClientError>> {
        loop {
            if let Some(t) = self.buffered.pop_front() {
                return Some(Ok(t));
            }
            if self.done {
                return None;
            }
            match self.api.list(&self.query).await {
                Ok(page) => {
                    self.buffered.extend(page.threads);
                    match page.next_cursor {
                        Some(c) => self.query.cursor = Some(c),
                        None => self.done = true,
                    }
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }

    /// Every remaining thread.
    ///
    /// # Errors
    /// The first error of [`next`](Self::next).
    pub async fn collect(mut self) -> Result<Vec<ThreadSummary>, ClientError> {
        let mut all = Vec::new();
        while let Some(t) = self.next().await {
            all.push(t?);
        }
        Ok(all)
    }
}

/// How many times in a row a [`ThreadFollow`] reconnects after a cut before it gives up.
pub const FOLLOW_RECONNECTS: u32 = 5;

/// One event of a thread's follow stream, with its id (`{seq}.{cursor}`: the run's place
/// in the thread and the event's in the run).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FollowedEvent {
    /// The event's SSE id, what a reconnect resumes after.
    pub id: Option<String>,
    /// The event.
    pub event: Event,
}

type Body = futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>;

/// A thread's follow stream: from [`ThreadsApi::follow`]. It does not end by itself (a
/// thread may always have another run); drop it to stop following.
pub struct ThreadFollow {
    api: ThreadsApi,
    url: reqwest::Url,
    last_id: Option<String>,
    body: Option<Body>,
    reader: SseReader,
    failures: u32,
}

impl std::fmt::Debug for ThreadFollow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadFollow")
            .field("url", &self.url.as_str())
            .field("last_id", &self.last_id)
            .finish_non_exhaustive()
    }
}

impl ThreadFollow {
    /// The id of the last event delivered: where a new follow resumes
    /// ([`ThreadsApi::follow_after`]).
    #[must_use]
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The next event of the thread's runs.
    ///
    /// # Errors
    /// [`ClientError::HttpStatus`] when the server refuses the follow (404 without a
    /// thread store, 410 when the resume point is no longer kept);
    /// [`ClientError::Transport`] after [`FOLLOW_RECONNECTS`] failed reconnects in a row;
    /// [`ClientError::Sse`] or a schema error for a body that is no AG-UI event stream.
    /// The follow ends after an error.
    pub async fn next(&mut self) -> Option<Result<FollowedEvent, ClientError>> {
        loop {
            if let Some((data, id)) = self.reader.next_data_with_id() {
                let event = match ag_ui_core::read::from_str::<Event>(data) {
                    Ok(e) => e,
                    Err(e) => {
                        self.body = None;
                        return Some(Err(ClientError::invalid_answer(format!(
                            "a follow event: {e}"
                        ))));
                    }
                };
                let id = id.map(str::to_owned);
                if id.is_some() {
                    self.last_id.clone_from(&id);
                }
                self.failures = 0;
                return Some(Ok(FollowedEvent { id, event }));
            }
            let Some(body) = self.body.as_mut() else {
                if let Err(e) = self.connect().await {
                    return Some(Err(e));
                }
                continue;
            };
            match body.next().await {
                Some(Ok(chunk)) => {
                    if let Err(e) = self.reader.feed(&chunk) {
                        self.body = None;
                        return Some(Err(ClientError::Sse(e)));
                    }
                }
                // A cut (or an end, which a follow never has by itself): resume.
                Some(Err(_)) | None => self.body = None,
            }
        }
    }

    /// (Re)connects, after a pause when it failed before; bounded by
    /// [`FOLLOW_RECONNECTS`].
    async fn connect(&mut self) -> Result<(), ClientError> {
        loop {
            if self.failures > 0 {
                if self.failures > FOLLOW_RECONNECTS {
                    return Err(ClientError::transport(format!(
                        "the follow stream was cut and {FOLLOW_RECONNECTS} reconnects failed"
                    )));
                }
                let pause = Duration::from_millis(100 << self.failures.min(5));
                tokio::time::sleep(pause).await;
            }
            self.failures += 1;
            let mut headers = self.api.headers.clone();
            headers.remove(CONTENT_TYPE);
            headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            if let Some(id) = self
                .last_id
                .as_deref()
                .and_then(|i| HeaderValue::from_str(i).ok())
            {
                headers.insert("last-event-id", id);
            }
            let sent = self
                .api
                .client
                .get(self.url.clone())
                .headers(headers)
                .send()
                .await;
            let response = match sent {
                Ok(r) => r,
                Err(_) => continue,
            };
            if !response.status().is_success() {
                return Err(status_error(response, self.api.max_error_body).await);
            }
            self.reader = SseReader::new();
            self.body = Some(response.bytes_stream().boxed());
            return Ok(());
        }
    }
}
