//! Event streams, as a client receives them: the machinery behind
//! [`EventDecoder`](crate::EventDecoder) (unknown events dropped, 0.x events translated),
//! [`ChunkExpander`](crate::ChunkExpander) (chunk expansion, spec §9.3),
//! [`Verifier`](crate::Verifier) (the lifecycle rules, §9.1),
//! [`EventPipeline`](crate::EventPipeline) (the three in order) and
//! [`StreamConsumer`](crate::StreamConsumer) (which also keeps a
//! [`ThreadState`](crate::ThreadState) current), and the run lifecycle they share
//! ([`RunLifecycle`](crate::RunLifecycle)). The types live at the crate root; this
//! module holds [`verify_events`], which checks a whole sequence. SSE framing is
//! [`crate::sse`].

#[doc(hidden)]
pub mod chunk;
pub(crate) mod consumer;
pub(crate) mod decoder;
pub(crate) mod delta;
pub(crate) mod lifecycle;
pub(crate) mod pipeline;
pub(crate) mod rule;
#[doc(hidden)]
pub mod sse;
#[doc(hidden)]
pub mod verify;

pub use verify::verify_events;
