//! Typed calls of the threads API (the workspace server's extension below the agent path):
//! list a principal's threads page by page, read one, rename, archive, change its
//! metadata, delete it.

use std::collections::VecDeque;

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
