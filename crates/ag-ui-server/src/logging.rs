//! A ready `tracing` subscriber for a server binary (feature `logging`): the log on stderr,
//! readable or as JSON lines, filtered by `RUST_LOG` (default `info`), and, with the `otel`
//! feature and `OTEL_EXPORTER_OTLP_ENDPOINT` set, the spans exported over OTLP.
//!
//! ```no_run
//! let logging = ag_ui_server::logging::install(ag_ui_server::logging::LogFormat::Text)?;
//! // … serve …
//! logging.shutdown();
//! # Ok::<(), ag_ui_server::logging::LoggingError>(())
//! ```

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum LogFormat {
    /// One readable line per event, with the spans' fields (request and run ids).
    #[default]
    Text,
    /// One JSON object per line (`timestamp`, `level`, `fields`, `target`, `span`,
    /// `spans`), for log collectors.
    Json,
}

impl std::str::FromStr for LogFormat {
    type Err = LoggingError;

    /// `text` or `json`.
    fn from_str(s: &str) -> Result<Self, LoggingError> {
        match s {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(LoggingError(format!(
                "unknown log format {other:?} (expected text or json)"
            ))),
        }
    }
}

/// Why the subscriber could not be installed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct LoggingError(String);

/// The installed subscriber: keep it until the process ends, then
/// [`shutdown`](Self::shutdown) it so the last spans are exported.
#[derive(Debug)]
#[must_use = "keep it, then call shutdown() so the last spans are exported"]
pub struct Logging {
    #[cfg(feature = "otel")]
    export: Option<crate::otel::OtlpExport>,
}

impl Logging {
    /// Whether spans are exported over OTLP.
    #[must_use]
    pub fn exports_spans(&self) -> bool {
        #[cfg(feature = "otel")]
        return self.export.is_some();
        #[cfg(not(feature = "otel"))]
        false
    }

    /// Exports the spans not yet sent and stops the export.
    pub fn shutdown(self) {
        #[cfg(feature = "otel")]
        if let Some(export) = self.export
            && let Err(e) = export.shutdown()
        {
            tracing::warn!(error = %e, "the last spans could not be exported");
        }
    }
}

/// Installs the process's global subscriber: the log on stderr in `format`, filtered by
/// `RUST_LOG` (default `info`); with the `otel` feature, the OTLP export
/// [`OtlpExport::from_env`](crate::otel::OtlpExport::from_env) configures.
///
/// # Errors
/// When `RUST_LOG` cannot be read, the export cannot be built, or a global subscriber is
/// already installed.
pub fn install(format: LogFormat) -> Result<Logging, LoggingError> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(value) if !value.trim().is_empty() => EnvFilter::try_new(&value)
            .map_err(|e| LoggingError(format!("RUST_LOG={value:?} is not a filter: {e}")))?,
        _ => EnvFilter::new("info"),
    };
    let log = match format {
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(std::io::stderr().is_terminal())
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .with_writer(std::io::stderr)
            .boxed(),
    };
    #[cfg(feature = "otel")]
    let export = crate::otel::OtlpExport::from_env().map_err(|e| LoggingError(e.to_string()))?;
    // Spans are exported at info and above, whatever `RUST_LOG` shows.
    #[cfg(feature = "otel")]
    let otel = export.as_ref().map(|e| {
        e.layer()
            .with_filter(tracing_subscriber::filter::LevelFilter::INFO)
    });
    #[cfg(not(feature = "otel"))]
    let otel: Option<tracing_subscriber::layer::Identity> = None;
    tracing_subscriber::registry()
        .with(otel)
        .with(log.with_filter(filter))
        .try_init()
        .map_err(|e| LoggingError(format!("a tracing subscriber is already installed: {e}")))?;
    Ok(Logging {
        #[cfg(feature = "otel")]
        export,
    })
}
