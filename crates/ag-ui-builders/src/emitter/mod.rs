//! [`RunEmitter`]: turns an agent's work — a model's streamed output, tool results, state,
//! steps, activity, subagents — into a well-ordered AG-UI event sequence.
//!
//! The emitter keeps no run state machine of its own: every event goes through an
//! [`ag_ui_core::Verifier`], and what is open (to append to, to close at the end of a turn,
//! an invocation or the run), who owns an id and which subagent invocation is active are
//! the verifier's answers. The emitter keeps only what the protocol's rules do not: where
//! the next text or tool call goes, the argument text and answers of its tool calls, the
//! state and activity content it diffs against, the usage counted.
//!
//! | module | concern |
//! |---|---|
//! | `run` | the emitter itself: start, ids, what it asks the verifier, emitting |
//! | `chunk` | [`ModelChunk`]: a model's streamed output |
//! | `text` | text messages and reasoning |
//! | `tool` | tool calls and their results |
//! | `state` | shared state and activity messages |
//! | `scope` | steps and subagent invocations |
//! | `manual` | hand-built events, `CUSTOM` and `RAW` |
//! | `end` | usage and the end of the run, closing what is open |

mod chunk;
mod end;
mod manual;
mod run;
mod scope;
mod state;
mod text;
mod tool;

pub use chunk::ModelChunk;
pub use run::RunEmitter;
