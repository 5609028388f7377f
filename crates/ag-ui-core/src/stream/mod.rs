//! Event streams, as a client receives them: SSE framing ([`sse`]), the stream decoder
//! (unknown events dropped, 0.x events translated), chunk expansion ([`chunk`]), the
//! lifecycle verifier ([`verify`]), the pipeline that runs them in order, and the consumer
//! that also keeps a [`crate::ThreadState`] current.

pub mod chunk;
pub(crate) mod consumer;
pub(crate) mod decoder;
pub(crate) mod pipeline;
pub(crate) mod rule;
pub mod sse;
pub mod verify;
