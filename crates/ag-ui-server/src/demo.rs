//! A deterministic demo agent, for trying a client against a real server and for
//! interoperability tests.
//!
//! [`DemoAgent`] picks its behaviour from `forwardedProps.scenario` of the run input:
//!
//! | scenario | what the run does |
//! |---|---|
//! | `chat` (default) | reasoning, a streamed text message, a `get_weather` tool call with streamed arguments and its result, a state snapshot and JSON Patch deltas, a closing text message, `RUN_FINISHED` |
//! | `interrupt` | a text message, a `send_email` tool call, a state snapshot, then `RUN_FINISHED` with an `interrupt` outcome (one tool-approval interrupt); a run whose input resumes that interrupt sends the tool result (approved) or a refusal (cancelled) and finishes with success |
//! | `error` | a text message cut short by `RUN_ERROR` (`code: "demo_error"`) |
//! | `slow` | a text message a second for a minute (for cancellation tests); when cancelled, stops at once and ends with `RUN_FINISHED` outcome `cancelled` |
//! | `firehose` | one text message of `forwardedProps.events` (default 1000) `TEXT_MESSAGE_CONTENT` events of `forwardedProps.bytes` (default 100) bytes each, as fast as the client reads (for throughput and back-pressure tests) or one every `forwardedProps.every_ms` milliseconds (a token rate), then `RUN_FINISHED` |
//! | `frontend_tool` | a text message and a call of the first tool the input declares in `tools` (a tool the client runs), arguments `{"city":"Amsterdam"}`, then `RUN_FINISHED`; a run whose last message is a tool result answers with a text quoting it; a run declaring no tools ends with `RUN_ERROR` (`code: "no_tools"`) |
//!
//! With `forwardedProps.timestamps: true` every event of the run carries `timestamp`, the
//! Unix time in milliseconds when it was produced (what a load tool measures latency from).
//!
//! An unknown scenario ends with `RUN_ERROR` (`code: "unknown_scenario"`). Ids are
//! derived from the run id (`<runId>-msg-1`, …), so a run's events are the same every time.
//! By default the demo keeps no state between runs: the interrupt's id is the tool call's
//! id with `-approval` appended, which is how a resumed run finds the call.
//!
//! [`DemoAgent::track_interrupts`] makes it keep each thread's open interrupts with an
//! [`InterruptTracker`], as a production server does
//! (spec §9.2): while a thread is paused, an input that does not resume it ends with
//! `RUN_ERROR` (`code: "interrupt_pending"`), a resume that does not answer exactly the
//! open interrupts with `RUN_ERROR` (`code: "resume_mismatch"`), and replaying the last
//! resume is answered again.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use ag_ui_builders::interrupt::tool_approval;
use ag_ui_builders::{RunEmitter, SequentialIds};
use ag_ui_core::{JsonPatchOperation, Message, ResumeStatus, RunAgentInput};
use serde_json::{Value, json};

use crate::resume::InterruptTracker;
use crate::{AgentStream, Cancellation, EmitError, Emitter, emit};

/// The demo agent (see the [module docs](self)).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct DemoAgent {
    /// Pause between the events of the `chat` scenario (none by default).
    pub pace: Duration,
    interrupts: Option<Arc<InterruptTracker>>,
}

impl DemoAgent {
    /// The demo agent, answering without pauses.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The demo agent pausing `pace` between the events of the `chat` scenario.
    #[must_use]
    pub fn with_pace(pace: Duration) -> Self {
        DemoAgent {
            pace,
            interrupts: None,
        }
    }

    /// The same agent keeping each thread's open interrupts (see the
    /// [module docs](self)).
    #[must_use]
    pub fn track_interrupts(mut self) -> Self {
        self.interrupts = Some(Arc::new(InterruptTracker::new()));
        self
    }
}

/// The scenario a run input asks for: `forwardedProps.scenario`, `chat` when absent.
#[must_use]
pub fn scenario(input: &RunAgentInput) -> &str {
    input
        .forwarded_props
        .as_ref()
        .and_then(|p| p.get("scenario"))
        .and_then(Value::as_str)
        .unwrap_or("chat")
}

impl crate::Agent for DemoAgent {
    fn run(&self, input: RunAgentInput, cancel: Cancellation) -> AgentStream {
        let run = RunEmitter::start_for(&input)
            .with_ids(SequentialIds::with_prefix(input.run_id.to_string()));
        let Some(tracker) = &self.interrupts else {
            return self.scenario(run, input, cancel);
        };
        if let Err(refused) = tracker.admit(&input) {
            let (message, code) = (refused.to_string(), refused.code());
            return emit(run, move |mut run| async move {
                run.emit(|r| r.fail_with_code(message, code)).await
            });
        }
        let tracked = input.clone();
        tracker.track(&tracked, self.scenario(run, input, cancel))
    }
}

impl DemoAgent {
    fn scenario(&self, run: RunEmitter, input: RunAgentInput, cancel: Cancellation) -> AgentStream {
        let pace = self.pace;
        let stamped = input
            .forwarded_props
            .as_ref()
            .and_then(|p| p.get("timestamps"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let run = if stamped { run.with_timestamps() } else { run };
        emit(run, move |mut run| async move {
            match scenario(&input) {
                "chat" => chat(&mut run, &input, pace).await,
                "interrupt" => interrupt(&mut run, &input).await,
                "error" => error(&mut run).await,
                "slow" => slow(&mut run, &cancel).await,
                "firehose" => firehose(&mut run, &input).await,
                "frontend_tool" => frontend_tool(&mut run, &input).await,
                other => {
                    let message = format!(
                        "unknown demo scenario {other:?} (known: chat, interrupt, error, slow, firehose, frontend_tool)"
                    );
                    run.emit(|r| r.fail_with_code(message, "unknown_scenario"))
                        .await
                }
            }
        })
    }
}

async fn pause(pace: Duration) {
    if !pace.is_zero() {
        sleep(pace).await;
    }
}

async fn chat(run: &mut Emitter, input: &RunAgentInput, pace: Duration) -> Result<(), EmitError> {
    let turns = input
        .state
        .as_ref()
        .and_then(|s| s.get("turns"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
        + 1;
    for delta in ["The user asks about the weather. ", "I will look it up."] {
        run.emit(|r| r.reasoning(delta)).await?;
        pause(pace).await;
    }
    for delta in ["Let me check ", "the weather ", "in Amsterdam."] {
        run.emit(|r| r.text(delta)).await?;
        pause(pace).await;
    }
    let call = run.emit(|r| r.tool_call_start("get_weather")).await?;
    for delta in [r#"{"city":"#, r#""Amster"#, r#"dam"}"#] {
        run.emit(|r| r.tool_call_args(call.clone(), delta)).await?;
        pause(pace).await;
    }
    run.emit(|r| r.tool_call_end(call.clone())).await?;
    run.emit(|r| r.tool_call_result(call.clone(), r#"{"temperature":14,"sky":"cloudy"}"#))
        .await?;
    pause(pace).await;
    run.emit(|r| r.state_snapshot(&json!({"turns": turns, "city": "Amsterdam", "weather": null})))
        .await?;
    run.emit(|r| {
        r.state_delta([JsonPatchOperation::replace(
            "/weather",
            json!({"temperature": 14}),
        )])?;
        r.state_delta([JsonPatchOperation::add("/weather/sky", "cloudy")])
    })
    .await?;
    pause(pace).await;
    for delta in ["It is 14 °C ", "and cloudy ", "in Amsterdam."] {
        run.emit(|r| r.text(delta)).await?;
        pause(pace).await;
    }
    run.emit(RunEmitter::finish).await
}

async fn interrupt(run: &mut Emitter, input: &RunAgentInput) -> Result<(), EmitError> {
    let resume = input.resume.as_deref().unwrap_or_default();
    if resume.is_empty() {
        run.emit(|r| r.text("I will send the email once you approve."))
            .await?;
        let call = run.emit(|r| r.tool_call_start("send_email")).await?;
        run.emit(|r| r.tool_call_args(call.clone(), r#"{"to":"ada@example.com","#))
            .await?;
        run.emit(|r| r.tool_call_args(call.clone(), r#""subject":"Hello"}"#))
            .await?;
        run.emit(|r| r.tool_call_end(call.clone())).await?;
        run.emit(|r| r.state_snapshot(&json!({"email": {"status": "awaiting approval"}})))
            .await?;
        let approval = tool_approval(
            format!("{call}-approval"),
            call.clone(),
            "Send the email to ada@example.com?",
        );
        return run.emit(|r| r.interrupt([approval])).await;
    }
    for entry in resume {
        let Some(call) = entry.interrupt_id.as_str().strip_suffix("-approval") else {
            let message = format!(
                "cannot resume: interrupt {:?} is not one this agent raised",
                entry.interrupt_id.as_str()
            );
            return run
                .emit(|r| r.fail_with_code(message, "unknown_interrupt"))
                .await;
        };
        let call = call.to_owned();
        let approved = entry.status == ResumeStatus::Resolved
            && entry
                .payload
                .as_ref()
                .and_then(|p| p.get("approved"))
                .and_then(Value::as_bool)
                .unwrap_or(true);
        if approved {
            run.emit(|r| r.tool_call_result(call.clone(), r#"{"sent":true}"#))
                .await?;
            run.emit(|r| r.state(&json!({"email": {"status": "sent"}})))
                .await?;
            run.emit(|r| r.text("The email is sent.")).await?;
        } else {
            run.emit(|r| r.tool_call_result(call.clone(), r#"{"sent":false}"#))
                .await?;
            run.emit(|r| r.state(&json!({"email": {"status": "not sent"}})))
                .await?;
            run.emit(|r| r.text("I did not send the email.")).await?;
        }
    }
    run.emit(RunEmitter::finish).await
}

async fn error(run: &mut Emitter) -> Result<(), EmitError> {
    run.emit(|r| r.text("Starting the work")).await?;
    run.emit(|r| r.text(" and then")).await?;
    run.emit(|r| r.fail_with_code("the demo agent failed on purpose", "demo_error"))
        .await
}

async fn frontend_tool(run: &mut Emitter, input: &RunAgentInput) -> Result<(), EmitError> {
    if let Some(Message::Tool(result)) = input.messages.last() {
        let text = format!("Your browser answered: {}", result.content.to_text());
        run.emit(|r| r.text(text)).await?;
        return run.emit(RunEmitter::finish).await;
    }
    let Some(tool) = input.tools().first() else {
        let message = "the frontend_tool scenario calls a tool the client declares in `tools`; the input declares none";
        return run.emit(|r| r.fail_with_code(message, "no_tools")).await;
    };
    let name = tool.name.clone();
    run.emit(|r| r.text("Let me ask your browser.")).await?;
    let call = run.emit(|r| r.tool_call_start(name)).await?;
    run.emit(|r| r.tool_call_args(call.clone(), r#"{"city":"Amsterdam"}"#))
        .await?;
    run.emit(|r| r.tool_call_end(call)).await?;
    run.emit(RunEmitter::finish).await
}

async fn slow(run: &mut Emitter, cancel: &Cancellation) -> Result<(), EmitError> {
    for second in 1..=60 {
        if cancel.is_cancelled() {
            break;
        }
        run.emit(|r| r.text(format!("{second} "))).await?;
        // Wakes at the next second, or at once when the run is cancelled.
        let tick = std::pin::pin!(sleep(Duration::from_secs(1)));
        let stop = std::pin::pin!(cancel.cancelled());
        futures_util::future::select(tick, stop).await;
    }
    if cancel.is_cancelled() {
        // A stopped run says so (when the client is still there to read it).
        return run.emit(RunEmitter::cancel).await;
    }
    run.emit(RunEmitter::finish).await
}

async fn firehose(run: &mut Emitter, input: &RunAgentInput) -> Result<(), EmitError> {
    let prop = |name: &str, default: u64| {
        input
            .forwarded_props
            .as_ref()
            .and_then(|p| p.get(name))
            .and_then(Value::as_u64)
            .unwrap_or(default)
    };
    let events = prop("events", 1000);
    let bytes = usize::try_from(prop("bytes", 100))
        .unwrap_or(usize::MAX)
        .max(1);
    let every = Duration::from_millis(prop("every_ms", 0));
    let delta = "x".repeat(bytes);
    for _ in 0..events {
        if !every.is_zero() {
            sleep(every).await;
        }
        run.emit(|r| r.text(delta.as_str())).await?;
    }
    run.emit(RunEmitter::finish).await
}

/// Sleeps for `duration` without an async runtime (a thread wakes the task). The demo
/// uses it so that it runs on any executor.
pub fn sleep(duration: Duration) -> impl Future<Output = ()> + Send {
    Sleep {
        duration,
        shared: None,
    }
}

#[derive(Default)]
struct Wake {
    done: bool,
    waker: Option<Waker>,
}

struct Sleep {
    duration: Duration,
    shared: Option<Arc<Mutex<Wake>>>,
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let duration = self.duration;
        let shared = self.shared.get_or_insert_with(|| {
            let shared = Arc::new(Mutex::new(Wake::default()));
            let timer = Arc::clone(&shared);
            std::thread::spawn(move || {
                std::thread::sleep(duration);
                let waker = match timer.lock() {
                    Ok(mut w) => {
                        w.done = true;
                        w.waker.take()
                    }
                    Err(_) => None,
                };
                if let Some(w) = waker {
                    w.wake();
                }
            });
            shared
        });
        let Ok(mut state) = shared.lock() else {
            return Poll::Ready(());
        };
        if state.done {
            Poll::Ready(())
        } else {
            state.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}
