//! `RunAgentInput`: the body of the HTTP `POST` that starts a run.

use serde_json::Value;

use crate::codec::wire::wire_struct;
use crate::model::id::{RunId, ThreadId};
use crate::model::interrupt::ResumeEntry;
use crate::model::message::Message;
use crate::model::tool::{Context, Tool};

wire_struct! {
    /// `RunAgentInput`: the request that starts a run (also echoed in `RUN_STARTED.input`).
    /// Only `threadId`, `runId` and `messages` are required on the wire.
    pub struct RunAgentInput {
        required {
            /// Conversation id; a resume reuses the interrupted run's thread.
            thread_id: ThreadId = "threadId" ("a thread id string"),
            /// Id of the run being requested (chosen by the client).
            run_id: RunId = "runId" ("a run id string"),
            /// Conversation so far, in order (may be empty).
            messages: Vec<Message> = "messages" ("an array of Message objects"),
        }
        optional {
            /// Protocol version the caller speaks (`"1.0"`); absent = a pre-1.0 caller.
            protocol_version / with_protocol_version: String = "protocolVersion" [Absent],
            /// Run this one branches from (lineage / time travel within the thread).
            parent_run_id / with_parent_run_id: RunId = "parentRunId" [Absent],
            /// Starting state, any JSON; a bare `null` is read as absent.
            state / with_state: Value = "state" [State],
            /// Client-provided tools for this run; absent ≡ `[]`.
            tools / with_tools: Vec<Tool> = "tools" [Absent],
            /// Ambient context entries; absent ≡ `[]`.
            context / with_context: Vec<Context> = "context" [Absent],
            /// Application values passed to the agent untouched; any JSON.
            forwarded_props / with_forwarded_props: Value = "forwardedProps" [Absent],
            /// Answers to the interrupts that ended the previous run on this thread.
            resume / with_resume: Vec<ResumeEntry> = "resume" [Absent],
        }
    }
}

impl RunAgentInput {
    /// The tools, with absence read as the empty list it means.
    #[must_use]
    pub fn tools(&self) -> &[Tool] {
        self.tools.as_deref().unwrap_or(&[])
    }

    /// The context entries, with absence read as the empty list it means.
    #[must_use]
    pub fn context(&self) -> &[Context] {
        self.context.as_deref().unwrap_or(&[])
    }

    /// Whether this input resumes an interrupted run.
    #[must_use]
    pub fn is_resume(&self) -> bool {
        self.resume.as_ref().is_some_and(|r| !r.is_empty())
    }
}
