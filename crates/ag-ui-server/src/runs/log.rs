//! Logging for resumable runs: `tracing` events with the `tracing` feature, nothing
//! without it (the arguments are then not evaluated).

/// A `tracing::warn!` event, with the `tracing` feature.
macro_rules! log_warn {
    ($($arg:tt)*) => {{
        #[cfg(feature = "tracing")]
        tracing::warn!($($arg)*);
    }};
}

pub(crate) use log_warn;
