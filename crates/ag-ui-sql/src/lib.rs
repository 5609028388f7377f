#![cfg_attr(feature = "sqlite", doc = include_str!("../README.md"))]
#![cfg_attr(
    not(feature = "sqlite"),
    doc = "Durable AG-UI threads in PostgreSQL (feature `postgres`) or SQLite (feature \
           `sqlite`): a `ThreadStore` for ag-ui-server. The README's example needs the \
           `sqlite` feature."
)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(any(feature = "postgres", feature = "sqlite"))]
mod common;
mod config;
mod error;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;

use std::sync::Arc;

use ag_ui_server::threads::ThreadStore;

pub use config::{
    DEFAULT_ACQUIRE_TIMEOUT, DEFAULT_BUSY_TIMEOUT, DEFAULT_POOL_SIZE, DEFAULT_RETRIES,
    DEFAULT_RETRY_BACKOFF, DEFAULT_STATEMENT_TIMEOUT, MAX_RETRY_BACKOFF, SqlConfig,
};
pub use error::{SqlError, redact};
#[cfg(feature = "postgres")]
#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
pub use postgres::{POSTGRES_MIGRATOR, PostgresThreads};
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub use sqlite::{SQLITE_MIGRATOR, SqliteThreads};

/// Opens the thread store `url` names, with the default [`SqlConfig`]: see
/// [`open_with`].
///
/// # Errors
/// See [`open_with`].
pub async fn open(url: &str) -> Result<Arc<dyn ThreadStore>, SqlError> {
    open_with(url, SqlConfig::default()).await
}

/// Opens the thread store `url` names: `postgres://…` or `postgresql://…`
/// ([`PostgresThreads`], feature `postgres`), `sqlite://PATH` ([`SqliteThreads`], feature
/// `sqlite`; the path is relative to the working directory, the file created when
/// missing).
///
/// # Errors
/// [`SqlError::FeatureOff`] for a backend this build left out, [`SqlError::UnknownScheme`]
/// for any other scheme, and the backend's own errors (see
/// `PostgresThreads::connect_with`, `SqliteThreads::connect_with`). No error shows the
/// URL's password.
#[allow(
    clippy::unused_async,
    reason = "it awaits a backend's connect when one is built in"
)]
pub async fn open_with(url: &str, config: SqlConfig) -> Result<Arc<dyn ThreadStore>, SqlError> {
    let scheme = url.split_once(':').map_or("", |(s, _)| s);
    match scheme.to_ascii_lowercase().as_str() {
        "postgres" | "postgresql" => {
            #[cfg(feature = "postgres")]
            {
                let store = PostgresThreads::connect_with(url, config).await?;
                Ok(Arc::new(store))
            }
            #[cfg(not(feature = "postgres"))]
            {
                let _ = config;
                Err(SqlError::FeatureOff {
                    scheme: scheme.to_owned(),
                    feature: "postgres",
                })
            }
        }
        "sqlite" => {
            #[cfg(feature = "sqlite")]
            {
                let store = SqliteThreads::connect_with(url, config).await?;
                Ok(Arc::new(store))
            }
            #[cfg(not(feature = "sqlite"))]
            {
                let _ = config;
                Err(SqlError::FeatureOff {
                    scheme: scheme.to_owned(),
                    feature: "sqlite",
                })
            }
        }
        _ => Err(SqlError::UnknownScheme {
            scheme: scheme.to_owned(),
            url: redact(url),
        }),
    }
}
