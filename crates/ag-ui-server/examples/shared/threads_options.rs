//! The options the demo servers (`serve`, `web`, `ag-ui-redis`'s `serve_redis`) share for
//! durable threads and for who a request comes from: `--threads URL` and `--bearer
//! TOKEN=PRINCIPAL`. Each example includes this file (`#[path]`), so the three parse and
//! apply them alike.
//!
//! - `--threads postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (or `postgresql://`) keeps every
//!   thread in PostgreSQL, which several instances share; `--threads sqlite://PATH` keeps
//!   them in one SQLite file (PATH relative to the working directory, created when
//!   missing). Either turns resumable runs on. The URL is never printed (it may hold a
//!   password).
//! - `--bearer TOKEN=PRINCIPAL` (repeatable) authenticates every request by its
//!   `Authorization: Bearer TOKEN`: a request without a known token gets 401 with
//!   `WWW-Authenticate: Bearer realm="ag-ui"`; each principal sees only its own runs and
//!   threads. It turns resumable runs on too (they are what keeps a principal's runs and
//!   threads).
//!
//! Without `--bearer`, every request comes from one anonymous principal: every client
//! sees every thread.

use ag_ui_server::runs::{BearerTokens, Runs};

/// The help lines of the two options, in the examples' help layout.
pub(crate) const HELP: &str = "\
--threads URL            keep every thread durably, across restarts: postgres://USER@HOST:PORT/DB
                         (several instances share it) or sqlite://PATH (one file, PATH relative
                         to the working directory, created when missing); turns resumable runs
                         on. Threads are read back at GET /threads/{threadId}
--bearer TOKEN=PRINCIPAL authenticate every request by `Authorization: Bearer TOKEN` (repeatable):
                         other requests get 401; each principal sees only its own runs and
                         threads. Turns resumable runs on. Without it every request is one
                         anonymous principal's, and every client sees every thread
";

/// What `--threads` and `--bearer` asked for.
#[derive(Debug, Default)]
pub(crate) struct ThreadsOptions {
    /// The thread store's URL (`--threads`).
    threads: Option<String>,
    /// The tokens (`--bearer`), `None` when none was given.
    bearer: Option<BearerTokens>,
}

impl ThreadsOptions {
    /// Reads `arg` when it is `--threads` or `--bearer`, taking its value from `args`;
    /// returns whether it was one of them.
    ///
    /// # Errors
    /// A missing or malformed value, saying which option.
    pub(crate) fn take(
        &mut self,
        arg: &str,
        args: &mut impl Iterator<Item = String>,
    ) -> Result<bool, String> {
        match arg {
            "--threads" => {
                let url = args
                    .next()
                    .ok_or("--threads needs a URL: postgres://… or sqlite://PATH")?;
                let known = ["postgres://", "postgresql://", "sqlite://"];
                if !known.iter().any(|scheme| url.starts_with(scheme)) {
                    // The URL is not repeated: it may hold a password.
                    return Err(
                        "--threads: expected a postgres://, postgresql:// or sqlite:// URL"
                            .to_owned(),
                    );
                }
                self.threads = Some(url);
                Ok(true)
            }
            "--bearer" => {
                let pair = args.next().ok_or("--bearer needs TOKEN=PRINCIPAL")?;
                self.bearer
                    .get_or_insert_with(BearerTokens::new)
                    .insert_pair(&pair)
                    // The error names the principal at most, never the token.
                    .map_err(|e| format!("--bearer: {e}"))?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Whether the options turn resumable runs on (either was given).
    #[allow(dead_code, reason = "serve_redis is resumable whatever the options")]
    pub(crate) fn resumable(&self) -> bool {
        self.threads.is_some() || self.bearer.is_some()
    }

    /// `runs` with the thread store opened (migrated to the current schema) and the
    /// bearer tokens in force, as the options say.
    ///
    /// # Errors
    /// The thread store cannot be opened (unreachable, a file that cannot be created).
    pub(crate) async fn apply(self, mut runs: Runs) -> Result<Runs, String> {
        if let Some(url) = &self.threads {
            let store = ag_ui_sql::open(url)
                .await
                .map_err(|e| format!("--threads: {e}"))?;
            runs = runs.threads(store);
        }
        if let Some(tokens) = self.bearer {
            runs = runs.bearer(tokens);
        }
        Ok(runs)
    }
}
