//! proptest strategies for every public wire type.
//!
//! Values are built the way a user builds them (`new` + `with_*`, or the public fields),
//! so that every value a producer can make is reachable. Optional any-JSON fields never
//! hold a bare `null` here: that value is written as absence (see `props::null_in_optional_any_json_is_written_as_absent`).

use ag_ui_core::*;
use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Any string: empty, ASCII, unicode of every plane, control characters (escaped on write).
pub(crate) fn text() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "[a-z0-9_-]{0,8}",
        2 => any::<String>(),
        1 => "[\\x00-\\x1f\"\\\\/~\u{7f}\u{2028}\u{2029}\u{feff}]{0,6}",
        1 => "\\PC{0,4}[😀𝄞]{1,2}",
    ]
    .boxed()
}

pub(crate) fn opt_text() -> impl Strategy<Value = Option<String>> {
    option::of(text())
}

macro_rules! id_strategy {
    ($($f:ident: $t:ty),* $(,)?) => {$(
        pub(crate) fn $f() -> impl Strategy<Value = $t> {
            text().prop_map(<$t>::new)
        }
    )*};
}
id_strategy!(
    thread_id: ThreadId,
    run_id: RunId,
    message_id: MessageId,
    tool_call_id: ToolCallId,
    interrupt_id: InterruptId,
    subagent_run_id: SubagentRunId,
);

/// Largest magnitude every AG-UI peer holds exactly.
const SAFE: i64 = MAX_SAFE_INTEGER;

/// A number: integers in the safe range (most), the full i64/u64 ranges (serde_json holds
/// those exactly too), and finite doubles.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (-SAFE..=SAFE).prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        2 => any::<f64>()
            .prop_filter("JSON numbers are finite", |f| f.is_finite())
            .prop_map(Value::from),
        1 => prop_oneof![Just(0.0), Just(-0.0), Just(1e300), Just(5e-324), Just(0.1)].prop_map(Value::from),
    ]
}

/// Any JSON value, `null` included, nested a few levels.
pub(crate) fn json() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(Value::Array),
            btree_map(text(), inner, 0..5).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Any JSON value except a bare `null` (what an optional any-JSON field can carry).
pub(crate) fn json_not_null() -> impl Strategy<Value = Value> {
    json().prop_filter("optional any-JSON fields are never null", |v| !v.is_null())
}

pub(crate) fn opt_json() -> impl Strategy<Value = Option<Value>> {
    option::of(json_not_null())
}

pub(crate) fn object() -> BoxedStrategy<Map<String, Value>> {
    btree_map(text(), json(), 0..5)
        .prop_map(|m| m.into_iter().collect())
        .boxed()
}

pub(crate) fn metadata() -> BoxedStrategy<Metadata> {
    btree_map(
        prop_oneof![3 => text(), 1 => Just(AGUI_METADATA_KEY.to_owned())],
        json(),
        0..4,
    )
    .prop_map(|m| m.into_iter().collect())
    .boxed()
}

pub(crate) fn opt_metadata() -> impl Strategy<Value = Option<Metadata>> {
    option::of(metadata())
}

fn safe_int() -> impl Strategy<Value = i64> {
    prop_oneof![Just(0), Just(SAFE), Just(-SAFE), -SAFE..=SAFE]
}

fn count() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0), Just(SAFE.unsigned_abs()), 0..=SAFE.unsigned_abs()]
}

fn pick<T: Clone + std::fmt::Debug + 'static>(all: &'static [T]) -> impl Strategy<Value = T> {
    proptest::sample::select(all)
}

// ---------------------------------------------------------------------------
// Patches
// ---------------------------------------------------------------------------

pub(crate) fn pointer() -> impl Strategy<Value = JsonPointer> {
    vec(text(), 0..4).prop_map(JsonPointer::from_tokens)
}

pub(crate) fn patch_op() -> BoxedStrategy<JsonPatchOperation> {
    prop_oneof![
        (pointer(), json()).prop_map(|(p, v)| JsonPatchOperation::add(p, v)),
        pointer().prop_map(JsonPatchOperation::remove),
        (pointer(), json()).prop_map(|(p, v)| JsonPatchOperation::replace(p, v)),
        (pointer(), pointer()).prop_map(|(f, p)| JsonPatchOperation::move_(f, p)),
        (pointer(), pointer()).prop_map(|(f, p)| JsonPatchOperation::copy(f, p)),
        (pointer(), json()).prop_map(|(p, v)| JsonPatchOperation::test(p, v)),
    ]
    .boxed()
}

pub(crate) fn patch() -> impl Strategy<Value = Vec<JsonPatchOperation>> {
    vec(patch_op(), 0..4)
}

// ---------------------------------------------------------------------------
// Content, tools, messages
// ---------------------------------------------------------------------------

pub(crate) fn part_source() -> BoxedStrategy<PartSource> {
    prop_oneof![
        (text(), text()).prop_map(|(v, m)| PartSource::data(v, m)),
        (text(), opt_text()).prop_map(|(v, m)| {
            let mut s = UrlSource::new(v);
            s.mime_type = m;
            PartSource::Url(s)
        }),
        (text(), opt_text(), opt_text()).prop_map(|(v, p, m)| {
            let mut s = FileSource::new(v);
            s.provider = p;
            s.mime_type = m;
            PartSource::File(s)
        }),
    ]
    .boxed()
}

pub(crate) fn content_part() -> BoxedStrategy<ContentPart> {
    prop_oneof![
        (text(), (opt_text(), opt_json())).prop_map(|(t, (id, meta))| {
            let mut p = TextPart::new(t);
            p.id = id;
            p.metadata = meta;
            ContentPart::Text(p)
        }),
        (0..4_u8, part_source(), (opt_text(), opt_json())).prop_map(
            |(kind, source, (id, meta))| {
                macro_rules! media {
                    ($t:ident, $v:ident) => {{
                        let mut p = $t::new(source);
                        p.id = id;
                        p.metadata = meta;
                        ContentPart::$v(p)
                    }};
                }
                match kind {
                    0 => media!(ImagePart, Image),
                    1 => media!(AudioPart, Audio),
                    2 => media!(VideoPart, Video),
                    _ => media!(DocumentPart, Document),
                }
            }
        ),
    ]
    .boxed()
}

pub(crate) fn content() -> BoxedStrategy<Content> {
    prop_oneof![
        text().prop_map(Content::from),
        vec(content_part(), 0..3).prop_map(Content::from),
    ]
    .boxed()
}

pub(crate) fn tool_call() -> BoxedStrategy<ToolCall> {
    (tool_call_id(), text(), text(), opt_text(), opt_metadata())
        .prop_map(|(id, name, args, enc, meta)| {
            let mut c = ToolCall::function(id, name, args);
            c.encrypted_value = enc;
            c.metadata = meta;
            c
        })
        .boxed()
}

pub(crate) fn tool() -> BoxedStrategy<Tool> {
    (text(), text(), opt_json(), opt_metadata())
        .prop_map(|(n, d, params, meta)| {
            let mut t = Tool::new(n, d);
            t.parameters = params;
            t.metadata = meta;
            t
        })
        .boxed()
}

pub(crate) fn context() -> impl Strategy<Value = Context> {
    (text(), text()).prop_map(|(d, v)| Context::new(d, v))
}

/// The fields every message may carry besides its own.
fn message_base() -> impl Strategy<
    Value = (
        MessageId,
        Option<SubagentRunId>,
        Option<String>,
        Option<Metadata>,
    ),
> {
    (
        message_id(),
        option::of(subagent_run_id()),
        opt_text(),
        opt_metadata(),
    )
}

pub(crate) fn message() -> BoxedStrategy<Message> {
    prop_oneof![
        (message_base(), text(), opt_text(), any::<bool>()).prop_map(
            |((id, sub, enc, meta), content, name, developer)| {
                if developer {
                    let mut m = DeveloperMessage::new(id, content);
                    (m.subagent_run_id, m.encrypted_value, m.metadata, m.name) =
                        (sub, enc, meta, name);
                    Message::Developer(m)
                } else {
                    let mut m = SystemMessage::new(id, content);
                    (m.subagent_run_id, m.encrypted_value, m.metadata, m.name) =
                        (sub, enc, meta, name);
                    Message::System(m)
                }
            }
        ),
        (
            message_base(),
            opt_text(),
            opt_text(),
            option::of(vec(tool_call(), 0..3))
        )
            .prop_map(|((id, sub, enc, meta), name, content, calls)| {
                let mut m = AssistantMessage::new(id);
                (m.subagent_run_id, m.encrypted_value, m.metadata) = (sub, enc, meta);
                (m.name, m.content, m.tool_calls) = (name, content, calls);
                Message::Assistant(m)
            }),
        (message_base(), content(), opt_text()).prop_map(|((id, sub, enc, meta), c, name)| {
            let mut m = UserMessage::new(id, c);
            (m.subagent_run_id, m.encrypted_value, m.metadata, m.name) = (sub, enc, meta, name);
            Message::User(m)
        }),
        (message_base(), content(), tool_call_id(), opt_text()).prop_map(
            |((id, sub, enc, meta), c, call, error)| {
                let mut m = ToolMessage::new(id, c, call);
                (m.subagent_run_id, m.encrypted_value, m.metadata, m.error) =
                    (sub, enc, meta, error);
                Message::Tool(m)
            }
        ),
        (message_base(), text(), object()).prop_map(|((id, sub, _, meta), kind, c)| {
            let mut m = ActivityMessage::new(id, kind, c);
            (m.subagent_run_id, m.metadata) = (sub, meta);
            Message::Activity(m)
        }),
        (message_base(), text()).prop_map(|((id, sub, enc, meta), c)| {
            let mut m = ReasoningMessage::new(id, c);
            (m.subagent_run_id, m.encrypted_value, m.metadata) = (sub, enc, meta);
            Message::Reasoning(m)
        }),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------
// Interrupts, outcomes, usage, input
// ---------------------------------------------------------------------------

pub(crate) fn interrupt() -> BoxedStrategy<Interrupt> {
    (
        (interrupt_id(), text(), option::of(subagent_run_id())),
        (
            opt_text(),
            option::of(tool_call_id()),
            option::of(object()),
            opt_text(),
            opt_metadata(),
        ),
    )
        .prop_map(|((id, reason, sub), (msg, call, schema, expires, meta))| {
            let mut i = Interrupt::new(id, reason);
            (i.subagent_run_id, i.message, i.tool_call_id) = (sub, msg, call);
            (i.response_schema, i.expires_at, i.metadata) = (schema, expires, meta);
            i
        })
        .boxed()
}

pub(crate) fn resume_entry() -> BoxedStrategy<ResumeEntry> {
    (
        interrupt_id(),
        pick(ResumeStatus::ALL),
        opt_json(),
        opt_metadata(),
    )
        .prop_map(|(id, status, payload, meta)| {
            let mut r = ResumeEntry::new(id, status);
            (r.payload, r.metadata) = (payload, meta);
            r
        })
        .boxed()
}

pub(crate) fn run_outcome() -> BoxedStrategy<RunFinishedOutcome> {
    prop_oneof![
        option::of(vec(tool_call_id(), 0..3)).prop_map(|ids| {
            let mut o = RunFinishedSuccessOutcome::new();
            o.pending_tool_call_ids = ids;
            RunFinishedOutcome::Success(o)
        }),
        vec(interrupt(), 1..3).prop_map(|i| RunFinishedOutcome::interrupt(i).unwrap()),
        Just(RunFinishedOutcome::cancelled()),
    ]
    .boxed()
}

pub(crate) fn subagent_outcome() -> impl Strategy<Value = SubagentFinishedOutcome> {
    prop_oneof![
        Just(SubagentFinishedOutcome::Success(
            SubagentFinishedSuccessOutcome::new()
        )),
        option::of(vec(interrupt_id(), 0..3)).prop_map(|ids| {
            let mut o = SubagentFinishedSuspendedOutcome::new();
            o.interrupt_ids = ids;
            SubagentFinishedOutcome::Suspended(o)
        }),
    ]
}

pub(crate) fn usage() -> BoxedStrategy<TokenUsage> {
    (
        opt_text(),
        opt_text(),
        [
            option::of(count()),
            option::of(count()),
            option::of(count()),
            option::of(count()),
            option::of(count()),
            option::of(count()),
        ],
    )
        .prop_map(|(provider, model, [a, b, c, d, e, f])| {
            let mut u = TokenUsage::new();
            (u.provider, u.model) = (provider, model);
            (u.input_tokens, u.output_tokens, u.total_tokens) = (a, b, c);
            (
                u.reasoning_tokens,
                u.cached_input_tokens,
                u.cache_write_input_tokens,
            ) = (d, e, f);
            u
        })
        .boxed()
}

pub(crate) fn run_agent_input() -> BoxedStrategy<RunAgentInput> {
    (
        (thread_id(), run_id(), vec(message(), 0..3)),
        (opt_text(), option::of(run_id()), opt_json()),
        (
            option::of(vec(tool(), 0..2)),
            option::of(vec(context(), 0..2)),
            opt_json(),
            option::of(vec(resume_entry(), 0..2)),
        ),
    )
        .prop_map(
            |((t, r, messages), (version, parent, state), (tools, ctx, props, resume))| {
                let mut i = RunAgentInput::new(t, r, messages);
                (i.protocol_version, i.parent_run_id, i.state) = (version, parent, state);
                (i.tools, i.context, i.forwarded_props, i.resume) = (tools, ctx, props, resume);
                i
            },
        )
        .boxed()
}

// ---------------------------------------------------------------------------
// Capabilities
// ---------------------------------------------------------------------------

fn flag() -> impl Strategy<Value = Option<bool>> {
    option::of(any::<bool>())
}

pub(crate) fn capabilities() -> BoxedStrategy<AgentCapabilities> {
    let identity = (
        [
            opt_text(),
            opt_text(),
            opt_text(),
            opt_text(),
            opt_text(),
            opt_text(),
        ],
        opt_metadata(),
    )
        .prop_map(|([n, t, d, v, p, u], meta)| {
            let mut c = IdentityCapabilities::new();
            (c.name, c.r#type, c.description, c.version) = (n, t, d, v);
            (c.provider, c.documentation_url, c.metadata) = (p, u, meta);
            c
        });
    let transport = [flag(), flag(), flag(), flag(), flag()].prop_map(|[a, b, c, d, e]| {
        let mut t = TransportCapabilities::new();
        (t.streaming, t.websocket, t.http_binary) = (a, b, c);
        (t.push_notifications, t.resumable) = (d, e);
        t
    });
    let tools = (flag(), option::of(vec(tool(), 0..2)), flag(), flag()).prop_map(|(s, i, p, c)| {
        let mut t = ToolsCapabilities::new();
        (t.supported, t.items, t.parallel_calls, t.client_provided) = (s, i, p, c);
        t
    });
    let output = (flag(), option::of(vec(text(), 0..3))).prop_map(|(s, m)| {
        let mut o = OutputCapabilities::new();
        (o.structured_output, o.supported_mime_types) = (s, m);
        o
    });
    let state = [flag(), flag(), flag(), flag()].prop_map(|[a, b, c, d]| {
        let mut s = StateCapabilities::new();
        (s.snapshots, s.deltas, s.memory, s.persistent_state) = (a, b, c, d);
        s
    });
    let subagent = (text(), opt_text()).prop_map(|(n, d)| {
        let mut s = SubagentInfo::new(n);
        s.description = d;
        s
    });
    let multi = ([flag(), flag(), flag()], option::of(vec(subagent, 0..2))).prop_map(
        |([s, d, h], subs)| {
            let mut m = MultiAgentCapabilities::new();
            (m.supported, m.delegation, m.handoffs, m.subagents) = (s, d, h, subs);
            m
        },
    );
    let reasoning = [flag(), flag(), flag()].prop_map(|[s, st, e]| {
        let mut r = ReasoningCapabilities::new();
        (r.supported, r.streaming, r.encrypted) = (s, st, e);
        r
    });
    let mm_in = [flag(), flag(), flag(), flag(), flag()].prop_map(|[i, a, v, p, f]| {
        let mut m = MultimodalInputCapabilities::new();
        (m.image, m.audio, m.video, m.pdf, m.file) = (i, a, v, p, f);
        m
    });
    let mm_out = [flag(), flag()].prop_map(|[i, a]| {
        let mut m = MultimodalOutputCapabilities::new();
        (m.image, m.audio) = (i, a);
        m
    });
    let multimodal = (option::of(mm_in), option::of(mm_out)).prop_map(|(i, o)| {
        let mut m = MultimodalCapabilities::new();
        (m.input, m.output) = (i, o);
        m
    });
    let execution =
        (flag(), flag(), option::of(count()), option::of(count())).prop_map(|(c, s, i, t)| {
            let mut e = ExecutionCapabilities::new();
            (
                e.code_execution,
                e.sandboxed,
                e.max_iterations,
                e.max_execution_time,
            ) = (c, s, i, t);
            e
        });
    let hitl = [flag(), flag(), flag(), flag(), flag(), flag()].prop_map(|[s, a, i, f, n, e]| {
        let mut h = HumanInTheLoopCapabilities::new();
        (h.supported, h.approvals, h.interventions) = (s, a, i);
        (h.feedback, h.interrupts, h.approve_with_edits) = (f, n, e);
        h
    });
    (
        (
            option::of(identity),
            option::of(transport),
            option::of(tools),
            option::of(output),
            option::of(state),
            option::of(multi),
        ),
        (
            option::of(reasoning),
            option::of(multimodal),
            option::of(execution),
            option::of(hitl),
            option::of(object()),
        ),
    )
        .prop_map(|((id, tr, to, out, st, mu), (re, mm, ex, hi, custom))| {
            let mut c = AgentCapabilities::new();
            (
                c.identity,
                c.transport,
                c.tools,
                c.output,
                c.state,
                c.multi_agent,
            ) = (id, tr, to, out, st, mu);
            (
                c.reasoning,
                c.multimodal,
                c.execution,
                c.human_in_the_loop,
                c.custom,
            ) = (re, mm, ex, hi, custom);
            c
        })
        .boxed()
}

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

/// The base fields of every event, and `subagentRunId` for attributable ones.
#[derive(Debug, Clone)]
pub(crate) struct Base {
    timestamp: Option<i64>,
    raw_event: Option<Value>,
    metadata: Option<Metadata>,
    subagent: Option<SubagentRunId>,
}

fn base() -> impl Strategy<Value = Base> {
    (
        option::of(safe_int()),
        opt_json(),
        opt_metadata(),
        option::of(subagent_run_id()),
    )
        .prop_map(|(timestamp, raw_event, metadata, subagent)| Base {
            timestamp,
            raw_event,
            metadata,
            subagent,
        })
}

/// Builds an event variant from a strategy of its own fields, then sets the base fields.
macro_rules! ev {
    ($fields:expr, |$p:pat_param| $build:expr, attributable) => {
        ($fields, base())
            .prop_map(|($p, b)| {
                let mut e = $build;
                (e.timestamp, e.raw_event, e.metadata) = (
                    b.timestamp,
                    b.raw_event.map(Box::new),
                    b.metadata.map(Box::new),
                );
                e.subagent_run_id = b.subagent;
                Event::from(e)
            })
            .boxed()
    };
    ($fields:expr, |$p:pat_param| $build:expr) => {
        ($fields, base())
            .prop_map(|($p, b)| {
                let mut e = $build;
                (e.timestamp, e.raw_event, e.metadata) = (
                    b.timestamp,
                    b.raw_event.map(Box::new),
                    b.metadata.map(Box::new),
                );
                Event::from(e)
            })
            .boxed()
    };
}

/// One strategy per event type, in `EventType` order (`the_strategies_cover_every_event_type`
/// checks that none is missing).
#[allow(clippy::too_many_lines, reason = "one arm per event type")]
pub(crate) fn events_by_type() -> Vec<(EventType, BoxedStrategy<Event>)> {
    use EventType as T;
    vec![
        (
            T::TextMessageStart,
            ev!(
                (
                    message_id(),
                    option::of(pick(TextMessageRole::ALL)),
                    opt_text()
                ),
                |(id, role, name)| {
                    let mut e = TextMessageStartEvent::new(id);
                    (e.role, e.name) = (role, name);
                    e
                },
                attributable
            ),
        ),
        (
            T::TextMessageContent,
            ev!(
                (message_id(), text()),
                |(id, d)| TextMessageContentEvent::new(id, d),
                attributable
            ),
        ),
        (
            T::TextMessageEnd,
            ev!(
                message_id(),
                |id| TextMessageEndEvent::new(id),
                attributable
            ),
        ),
        (
            T::TextMessageChunk,
            ev!(
                (
                    option::of(message_id()),
                    option::of(pick(TextMessageRole::ALL)),
                    opt_text(),
                    opt_text()
                ),
                |(id, role, delta, name)| {
                    let mut e = TextMessageChunkEvent::new();
                    (e.message_id, e.role, e.delta, e.name) = (id, role, delta, name);
                    e
                },
                attributable
            ),
        ),
        (
            T::ToolCallStart,
            ev!(
                (tool_call_id(), text(), option::of(message_id())),
                |(id, name, parent)| {
                    let mut e = ToolCallStartEvent::new(id, name);
                    e.parent_message_id = parent;
                    e
                },
                attributable
            ),
        ),
        (
            T::ToolCallArgs,
            ev!(
                (tool_call_id(), text()),
                |(id, d)| ToolCallArgsEvent::new(id, d),
                attributable
            ),
        ),
        (
            T::ToolCallEnd,
            ev!(tool_call_id(), |id| ToolCallEndEvent::new(id), attributable),
        ),
        (
            T::ToolCallChunk,
            ev!(
                (
                    option::of(tool_call_id()),
                    opt_text(),
                    option::of(message_id()),
                    opt_text()
                ),
                |(id, name, parent, delta)| {
                    let mut e = ToolCallChunkEvent::new();
                    (
                        e.tool_call_id,
                        e.tool_call_name,
                        e.parent_message_id,
                        e.delta,
                    ) = (id, name, parent, delta);
                    e
                },
                attributable
            ),
        ),
        (
            T::ToolCallResult,
            ev!(
                (
                    message_id(),
                    tool_call_id(),
                    content(),
                    option::of(pick(ToolRole::ALL))
                ),
                |(m, t, c, role)| {
                    let mut e = ToolCallResultEvent::new(m, t, c);
                    e.role = role;
                    e
                },
                attributable
            ),
        ),
        (
            T::StateSnapshot,
            ev!(json(), |s| StateSnapshotEvent::new(s), attributable),
        ),
        (
            T::StateDelta,
            ev!(patch(), |p| StateDeltaEvent::new(p), attributable),
        ),
        (
            T::MessagesSnapshot,
            ev!(vec(message(), 0..3), |m| MessagesSnapshotEvent::new(m)),
        ),
        (
            T::ActivitySnapshot,
            ev!(
                (message_id(), text(), object(), option::of(any::<bool>())),
                |(id, kind, c, replace)| {
                    let mut e = ActivitySnapshotEvent::new(id, kind, c);
                    e.replace = replace;
                    e
                },
                attributable
            ),
        ),
        (
            T::ActivityDelta,
            ev!(
                (message_id(), text(), patch()),
                |(id, kind, p)| ActivityDeltaEvent::new(id, kind, p),
                attributable
            ),
        ),
        (
            T::Raw,
            ev!(
                (json(), opt_text()),
                |(v, source)| {
                    let mut e = RawEvent::new(v);
                    e.source = source;
                    e
                },
                attributable
            ),
        ),
        (
            T::Custom,
            ev!(
                (text(), json()),
                |(n, v)| CustomEvent::new(n, v),
                attributable
            ),
        ),
        (
            T::RunStarted,
            ev!(
                (
                    thread_id(),
                    run_id(),
                    opt_text(),
                    option::of(run_id()),
                    option::of(run_agent_input())
                ),
                |(t, r, v, parent, input)| {
                    let mut e = RunStartedEvent::new(t, r);
                    (e.protocol_version, e.parent_run_id, e.input) =
                        (v, parent, input.map(Box::new));
                    e
                }
            ),
        ),
        (
            T::RunFinished,
            ev!(
                (
                    thread_id(),
                    run_id(),
                    opt_json(),
                    option::of(run_outcome()),
                    option::of(vec(usage(), 0..2))
                ),
                |(t, r, result, outcome, usage)| {
                    let mut e = RunFinishedEvent::new(t, r);
                    (e.result, e.outcome, e.usage) = (result, outcome, usage);
                    e
                }
            ),
        ),
        (
            T::RunError,
            ev!(
                (text(), opt_text(), option::of(vec(usage(), 0..2))),
                |(m, code, usage)| {
                    let mut e = RunErrorEvent::new(m);
                    (e.code, e.usage) = (code, usage);
                    e
                }
            ),
        ),
        (
            T::StepStarted,
            ev!(text(), |n| StepStartedEvent::new(n), attributable),
        ),
        (
            T::StepFinished,
            ev!(text(), |n| StepFinishedEvent::new(n), attributable),
        ),
        (
            T::ReasoningStart,
            ev!(
                message_id(),
                |id| ReasoningStartEvent::new(id),
                attributable
            ),
        ),
        (
            T::ReasoningMessageStart,
            ev!(
                message_id(),
                |id| ReasoningMessageStartEvent::for_message(id),
                attributable
            ),
        ),
        (
            T::ReasoningMessageContent,
            ev!(
                (message_id(), text()),
                |(id, d)| ReasoningMessageContentEvent::new(id, d),
                attributable
            ),
        ),
        (
            T::ReasoningMessageEnd,
            ev!(
                message_id(),
                |id| ReasoningMessageEndEvent::new(id),
                attributable
            ),
        ),
        (
            T::ReasoningMessageChunk,
            ev!(
                (option::of(message_id()), opt_text()),
                |(id, d)| {
                    let mut e = ReasoningMessageChunkEvent::new();
                    (e.message_id, e.delta) = (id, d);
                    e
                },
                attributable
            ),
        ),
        (
            T::ReasoningEnd,
            ev!(message_id(), |id| ReasoningEndEvent::new(id), attributable),
        ),
        (
            T::ReasoningEncryptedValue,
            ev!(
                (pick(ReasoningEncryptedValueSubtype::ALL), text(), text()),
                |(s, id, v)| ReasoningEncryptedValueEvent::new(s, id, v),
                attributable
            ),
        ),
        (
            T::SubagentStarted,
            ev!(
                (
                    subagent_run_id(),
                    text(),
                    opt_text(),
                    option::of(subagent_run_id()),
                    option::of(tool_call_id()),
                    option::of(message_id())
                ),
                |(id, name, d, ps, pt, pm)| {
                    let mut e = SubagentStartedEvent::new(id, name);
                    (
                        e.description,
                        e.parent_subagent_run_id,
                        e.parent_tool_call_id,
                        e.parent_message_id,
                    ) = (d, ps, pt, pm);
                    e
                }
            ),
        ),
        (
            T::SubagentFinished,
            ev!(
                (
                    subagent_run_id(),
                    opt_json(),
                    option::of(subagent_outcome())
                ),
                |(id, result, outcome)| {
                    let mut e = SubagentFinishedEvent::new(id);
                    (e.result, e.outcome) = (result, outcome);
                    e
                }
            ),
        ),
        (
            T::SubagentError,
            ev!((subagent_run_id(), text(), opt_text()), |(id, m, code)| {
                let mut e = SubagentErrorEvent::new(id, m);
                e.code = code;
                e
            }),
        ),
    ]
}

/// Any event, each type equally likely.
pub(crate) fn event() -> impl Strategy<Value = Event> {
    let arms: Vec<_> = events_by_type().into_iter().map(|(_, s)| (1, s)).collect();
    proptest::strategy::Union::new_weighted(arms)
}
