//! Logging for resumable runs: `tracing` events with the `tracing` feature, nothing
//! without it (the arguments are then not evaluated).

/// A `tracing::warn!` event, with the `tracing` feature.
macro_rules! log_warn {
    ($($arg:tt)*) => {{
        #[cfg(feature = "tracing")]
        tracing::warn!($($arg)*);
    }};
}

/// A `tracing::info!` event, with the `tracing` feature.
#[allow(unused_macros)]
macro_rules! log_info {
    ($($arg:tt)*) => {{
        #[cfg(feature = "tracing")]
        tracing::info!($($arg)*);
    }};
}

#[allow(unused_imports)]
pub(crate) use {log_info, log_warn};
