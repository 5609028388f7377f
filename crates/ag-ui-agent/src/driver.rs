//! The run loop: a model call streamed into the run, the backend tools of its turn, the
//! model called again, up to the step limit; and the server's `Agent` impl.

use std::future::Future;
use std::pin::pin;
use std::time::Instant;

use ag_ui_builders::{ModelChunk, ProviderUsage, RunEmitter, SequentialIds, tool_call};
use ag_ui_core::{
    AssistantMessage, HistoryRepair, Message, RunAgentInput, ToolCall, ToolCallId, ToolMessage,
    provider_history,
};
use ag_ui_server::telemetry::{ModelCall, ModelCallHook, record_string_array};
use ag_ui_server::{Agent, AgentStream, Cancellation, EmitError, Emitter, RunContext, emit};
use futures_util::StreamExt;
use futures_util::future::{Either, select};
use tracing::Instrument;
use tracing::field::Empty;

use crate::agent::{CODE_STEP_LIMIT, ModelAgent, UNMAPPED_EVENT};
use crate::model::{
    CODE_CONTENT_FILTER, CODE_LENGTH, CompletionModel, Finish, ModelError, ModelEvent,
};
use crate::tools::{ToolAnswer, ToolContext, no_such_tool};

impl<M: CompletionModel> ModelAgent<M> {
    /// Runs `input` with `context`: the event stream of the run (what the server's `Agent`
    /// impl returns).
    pub fn stream(&self, input: RunAgentInput, context: &RunContext) -> AgentStream {
        let agent = self.clone();
        let mut tool_context = ToolContext::new(
            input.thread_id.clone(),
            input.run_id.clone(),
            input.state.clone().unwrap_or_default(),
        )
        .with_cancellation(context.cancellation().clone());
        if let Some(principal) = context.principal() {
            tool_context = tool_context.with_principal(principal);
        }
        for name in &self.inner.tool_headers {
            if let Some(value) = context.headers().get(name).and_then(|v| v.to_str().ok()) {
                tool_context = tool_context.with_header(name.as_str(), value);
            }
        }
        // Message ids derived from the run id: a run's events are the same each time it is
        // given the same provider stream (tool calls keep the provider's ids).
        let mut run = RunEmitter::start_for(&input)
            .with_ids(SequentialIds::with_prefix(input.run_id.to_string()));
        if let Some(state) = input.state.clone() {
            run = run.with_state_baseline(state);
        }
        let hook = context.extensions().get::<ModelCallHook>().cloned();
        emit(run, move |mut run| async move {
            drive(&agent, &mut run, &input, &tool_context, hook.as_ref()).await
        })
    }
}

/// Logs at warn what was changed in the request so that the provider accepts it (see
/// `ag_ui_core::provider_history`); the thread and the events are left as they are.
fn log_repairs<'a>(
    input: &RunAgentInput,
    what: &str,
    repairs: impl IntoIterator<Item = &'a HistoryRepair>,
) {
    for r in repairs {
        tracing::warn!(
            thread_id = %input.thread_id,
            run_id = %input.run_id,
            tool_call_id = %r.tool_call_id,
            repair = r.kind.as_str(),
            "{what} was changed for the model provider: {r}"
        );
    }
}

impl<M: CompletionModel> Agent for ModelAgent<M> {
    fn run(&self, input: RunAgentInput, cancel: Cancellation) -> AgentStream {
        let context = RunContext::new(&input, cancel);
        self.stream(input, &context)
    }

    fn run_with_context(&self, input: RunAgentInput, context: RunContext) -> AgentStream {
        self.stream(input, &context)
    }
}

/// `f`'s output, or `None` when `cancel` is tripped first (or was already; when both are
/// ready, the cancellation wins).
async fn until_cancelled<F: Future>(cancel: &Cancellation, f: F) -> Option<F::Output> {
    if cancel.is_cancelled() {
        return None;
    }
    match select(pin!(cancel.cancelled()), pin!(f)).await {
        Either::Left(_) => None,
        Either::Right((output, _)) => Some(output),
    }
}

/// Runs `input` to its end on `run`.
async fn drive<M: CompletionModel>(
    agent: &ModelAgent<M>,
    run: &mut Emitter,
    input: &RunAgentInput,
    ctx: &ToolContext,
    hook: Option<&ModelCallHook>,
) -> Result<(), EmitError> {
    let settings = &agent.inner;
    let cancel = ctx.cancellation();
    let mut conversation: Vec<Message> = input.messages.clone();
    for step in 1..=settings.max_steps {
        let first = step == 1;
        let request = {
            let history = provider_history(&conversation);
            let (request, unmapped, repairs) = agent.request(input, &ctx.state(), &history, first);
            if first {
                log_repairs(input, "the run's history", &repairs);
            } else {
                let len = input.messages.len();
                let turns = repairs.iter().filter(|r| r.message >= len);
                log_repairs(input, "the model's turn", turns);
            }
            if !unmapped.is_empty() {
                let value = serde_json::to_value(&unmapped).unwrap_or_default();
                run.emit(|r| r.custom(UNMAPPED_EVENT, value)).await?;
            }
            request
        };
        let model = settings.model.model_name();
        let provider = settings.model.provider_name();
        let span = chat_span(provider, model);
        let started = Instant::now();
        let mut state = TurnState::default();
        let stream = {
            let _entered = span.enter();
            settings.model.stream(request)
        };
        let turn = model_turn(stream, run, cancel, &mut state)
            .instrument(span.clone())
            .await;
        state.record(&span, provider, model, started, hook);
        let Some(turn) = turn? else {
            return Ok(());
        };
        if turn.calls.is_empty() {
            return run.emit(RunEmitter::finish).await;
        }
        let Some(results) = answer(agent, run, &turn.calls, input, ctx).await? else {
            // A frontend call is pending, or the run was cancelled: the run has ended.
            return Ok(());
        };
        if step == settings.max_steps {
            break;
        }
        conversation.extend(turn_messages(step, &turn.text, &results));
    }
    let message = format!(
        "the run reached its limit of {} model calls",
        settings.max_steps
    );
    run.emit(|r| r.fail_with_code(message, CODE_STEP_LIMIT))
        .await
}

/// Answers a turn's `calls`: every call of a backend tool runs (in order) with `ctx`; what
/// it changed of the state is emitted as `STATE_DELTA`, its result as `TOOL_CALL_RESULT`. A
/// call of a tool that is neither a backend tool nor a frontend one is answered with an
/// error result, so the model can correct itself. `Some(results)` when the model is to be
/// called again; `None` when the run has ended (a frontend call is pending: finished; the
/// run was cancelled while a tool ran).
async fn answer<M: CompletionModel>(
    agent: &ModelAgent<M>,
    run: &mut Emitter,
    calls: &[ToolCall],
    input: &RunAgentInput,
    ctx: &ToolContext,
) -> Result<Option<Vec<(ToolCall, String)>>, EmitError> {
    let tools = &agent.inner.tools;
    let mut pending = false;
    let mut results = Vec::new();
    for call in calls {
        let name = call.function.name.as_str();
        let answer = if tools.contains(name) {
            let span = tracing::info_span!(
                "execute_tool",
                otel.name = %format!("execute_tool {name}"),
                gen_ai.operation.name = "execute_tool",
                gen_ai.tool.name = name,
                gen_ai.tool.call.id = call.id.as_str(),
                gen_ai.tool.type = "function",
                error.type = Empty,
                otel.status_code = Empty,
            );
            let answered = until_cancelled(
                ctx.cancellation(),
                tools.call(name, &call.function.arguments, ctx.clone()),
            )
            .instrument(span.clone())
            .await;
            if let Some(ToolAnswer::Error(_)) = &answered {
                span.record("error.type", "tool_error");
                span.record("otel.status_code", "ERROR");
            }
            emit_state(run, ctx).await?;
            match answered {
                Some(answer) => answer,
                None => {
                    run.emit(RunEmitter::cancel).await?;
                    return Ok(None);
                }
            }
        } else if input.tools().iter().any(|t| t.name == name) {
            pending = true;
            continue;
        } else {
            no_such_tool(name)
        };
        let content = ToolAnswer::into_content(answer);
        let (id, text) = (call.id.clone(), content.clone());
        run.emit(move |r| r.tool_call_result(id, text)).await?;
        results.push((call.clone(), content));
    }
    if pending {
        run.emit(RunEmitter::finish).await?;
        return Ok(None);
    }
    Ok(Some(results))
}

/// Emits what the tools changed of the state since the last time, as one `STATE_DELTA`.
async fn emit_state(run: &mut Emitter, ctx: &ToolContext) -> Result<(), EmitError> {
    let patch = ctx.take_patches();
    if patch.is_empty() {
        return Ok(());
    }
    run.emit(|r| r.state_delta(patch)).await
}

/// The model's turn and its backend tool results as AG-UI messages, for the next call.
fn turn_messages(step: usize, text: &str, results: &[(ToolCall, String)]) -> Vec<Message> {
    let calls: Vec<ToolCall> = results.iter().map(|(c, _)| c.clone()).collect();
    let mut turn = vec![Message::Assistant(
        AssistantMessage::new(format!("turn-{step}"))
            .with_content(text)
            .with_tool_calls(calls),
    )];
    for (k, (call, content)) in results.iter().enumerate() {
        turn.push(Message::Tool(ToolMessage::new(
            format!("turn-{step}-result-{k}"),
            content.as_str(),
            call.id.clone(),
        )));
    }
    turn
}

/// What a model call produced, when the run goes on.
#[derive(Debug, Default)]
struct Turn {
    /// The answer text of the turn.
    text: String,
    /// The tool calls, in the order they started, with their complete arguments.
    calls: Vec<ToolCall>,
}

/// Streams one model call into the run. `Ok(None)`: the run has ended (`RUN_ERROR` for a
/// provider failure or an unusable ending, or cancelled).
async fn model_turn(
    mut stream: crate::model::ModelStream,
    run: &mut Emitter,
    cancel: &Cancellation,
    turn: &mut TurnState,
) -> Result<Option<Turn>, EmitError> {
    loop {
        let Some(next) = until_cancelled(cancel, stream.next()).await else {
            run.emit(RunEmitter::cancel).await?;
            return Ok(None);
        };
        match next {
            None => break,
            Some(Ok(event)) => {
                run.emit(|r| turn.event(r, event)).await?;
                if turn.failed {
                    return Ok(None);
                }
            }
            Some(Err(e)) => {
                tracing::warn!(
                    status = e.status(),
                    code = e.code(),
                    provider_message = e.detail().unwrap_or(""),
                    "model provider call failed: {}",
                    e.message()
                );
                run.emit(|r| turn.fail(r, &e)).await?;
                return Ok(None);
            }
        }
    }
    run.emit(|r| turn.end(r)).await
}

/// The state of one model call's stream.
#[derive(Debug, Default)]
struct TurnState {
    /// The index, call id and tool name of each call, in the order they started.
    calls: Vec<(u64, String, String)>,
    text: String,
    finish: Option<Finish>,
    usage: Option<ProviderUsage>,
    /// The run was ended with `RUN_ERROR`.
    failed: bool,
    /// The call's usage as reported (kept after `usage` is handed to the run).
    reported: Option<ProviderUsage>,
    /// The code the call failed with.
    error: Option<&'static str>,
}

/// The span of one model call (`chat {model}`), with the GenAI attributes known before it.
fn chat_span(provider: &str, model: &str) -> tracing::Span {
    let name = if model.is_empty() {
        "chat".to_owned()
    } else {
        format!("chat {model}")
    };
    tracing::info_span!(
        "chat",
        otel.name = %name,
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider,
        gen_ai.request.model = model,
        gen_ai.response.model = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.response.finish_reasons = Empty,
        error.type = Empty,
        otel.status_code = Empty,
    )
}

impl TurnState {
    fn event(
        &mut self,
        r: &mut RunEmitter,
        event: ModelEvent,
    ) -> Result<(), ag_ui_builders::BuildError> {
        match event {
            ModelEvent::Text(text) if !text.is_empty() => {
                self.text.push_str(&text);
                r.text(text)?;
            }
            ModelEvent::Reasoning(text) if !text.is_empty() => {
                r.reasoning(text)?;
            }
            ModelEvent::ToolCall {
                index,
                id,
                name,
                arguments,
            } => {
                let fresh_id = id.filter(|i| !i.is_empty());
                let known = self
                    .calls
                    .iter()
                    .rev()
                    .find(|(i, _, _)| *i == index)
                    .filter(|(_, known, _)| fresh_id.as_ref().is_none_or(|f| f == known));
                let id = match known {
                    Some((_, id, _)) => id.clone(),
                    None => {
                        let Some(name) = name.filter(|n| !n.is_empty()) else {
                            return self.fail(
                                r,
                                &ModelError::provider(
                                    "the model provider started a tool call without naming its tool",
                                ),
                            );
                        };
                        let id = fresh_id.unwrap_or_else(|| ToolCallId::random().into_string());
                        r.tool_call_start_with_id(id.clone(), name.clone())?;
                        self.calls.push((index, id.clone(), name));
                        id
                    }
                };
                if !arguments.is_empty() {
                    r.tool_call_args(id, arguments)?;
                }
            }
            ModelEvent::ToolCallEnd { index, arguments } => {
                if let Some((_, id, _)) = self.calls.iter().rev().find(|(i, _, _)| *i == index) {
                    if let Some(whole) = arguments
                        && r.tool_call_arguments(id).is_some_and(str::is_empty)
                    {
                        r.tool_call_args(id.clone(), whole)?;
                    }
                    r.tool_call_end(id.clone())?;
                }
            }
            ModelEvent::Usage(usage) => {
                self.reported = Some(usage.clone());
                self.usage = Some(usage);
            }
            ModelEvent::Finish(finish) => self.finish = Some(finish),
            _ => {}
        }
        Ok(())
    }

    /// Ends the run with `RUN_ERROR` for `error`, with the usage so far.
    fn fail(
        &mut self,
        r: &mut RunEmitter,
        error: &ModelError,
    ) -> Result<(), ag_ui_builders::BuildError> {
        self.failed = true;
        self.error = Some(error.code());
        if let Some(u) = self.usage.take() {
            r.usage(u);
        }
        r.fail_with_code(error.message(), error.code())
    }

    /// The stream is over: the turn ends (with the usage), or the run does.
    fn end(&mut self, r: &mut RunEmitter) -> Result<Option<Turn>, ag_ui_builders::BuildError> {
        let failure = match self.finish {
            None => Some(ModelError::incomplete()),
            Some(Finish::Length) => Some(failure(
                "the model stopped at its output token limit",
                CODE_LENGTH,
            )),
            Some(Finish::ContentFilter) => Some(failure(
                "the model provider filtered the answer",
                CODE_CONTENT_FILTER,
            )),
            Some(_) => None,
        };
        if let Some(error) = failure {
            self.fail(r, &error)?;
            return Ok(None);
        }
        r.push(ModelChunk::EndTurn {
            usage: self.usage.take(),
        })?;
        let calls = self
            .calls
            .iter()
            .map(|(_, id, name)| {
                let arguments = r.tool_call_arguments(id).unwrap_or_default().to_owned();
                tool_call(id.as_str(), name.as_str(), arguments)
            })
            .collect();
        Ok(Some(Turn {
            text: std::mem::take(&mut self.text),
            calls,
        }))
    }
}

impl TurnState {
    /// Records the call on its span and hands it to the metrics hook.
    fn record(
        &self,
        span: &tracing::Span,
        provider: &str,
        model: &str,
        started: Instant,
        hook: Option<&ModelCallHook>,
    ) {
        let usage = self.reported.as_ref();
        if let Some(u) = usage {
            // Signed: OpenTelemetry's integer attributes are `i64`.
            let signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
            span.record("gen_ai.usage.input_tokens", signed(u.prompt_tokens));
            span.record("gen_ai.usage.output_tokens", signed(u.completion_tokens));
            if let Some(m) = u.model.as_deref() {
                span.record("gen_ai.response.model", m);
            }
        }
        if let Some(finish) = self.finish {
            let reason = match finish {
                Finish::Stop if !self.calls.is_empty() => "tool_calls",
                Finish::Stop => "stop",
                Finish::Length => "length",
                Finish::ContentFilter => "content_filter",
            };
            record_string_array(span, "gen_ai.response.finish_reasons", &[reason]);
        }
        if let Some(code) = self.error {
            span.record("error.type", code);
            span.record("otel.status_code", "ERROR");
        }
        if let Some(hook) = hook {
            let mut call = ModelCall::chat(provider, model, started.elapsed());
            call.input_tokens = usage.map(|u| u.prompt_tokens);
            call.output_tokens = usage.map(|u| u.completion_tokens);
            call.error_type = self.error;
            hook.record(&call);
        }
    }
}

/// A `RUN_ERROR` of the model's ending.
fn failure(message: &str, code: &'static str) -> ModelError {
    ModelError::with_code(code, message)
}
