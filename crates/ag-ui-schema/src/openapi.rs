//! The OpenAPI 3.1 document of the routes `ag-ui-server` answers below an agent's path:
//! starting a run, joining and stopping one, the threads API, the capabilities and the
//! document itself. Its schemas are generated from the Rust types: the run input, the
//! events and the capabilities from the AG-UI 1.1 bundle ([`crate::bundle_for`]), the
//! threads API's records from [`ag_ui_core::api`]. `ag-ui-server` serves the published
//! copy (its `openapi.json`) at `{agent}/openapi.json`; a test keeps the two equal.

use ag_ui_core::ProtocolVersion;
use ag_ui_core::api::{
    DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, Multitask, RunEndKind, RunPhase, RunRecord, RunSummary,
    ThreadDetail, ThreadPage, ThreadPatch, ThreadSummary,
};
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::{SchemaError, bundle_for, err};

/// Where the document's schemas live, as a JSON Pointer prefix of its `$ref`s.
const COMPONENTS: &str = "#/components/schemas/";

/// The media type of the SSE routes' answers.
const SSE: &str = "text/event-stream";

/// The OpenAPI 3.1 document of the server's routes, relative to the agent's path (its one
/// server is `/`; the server fills in the agent's path when it serves the document).
///
/// # Errors
/// When the bundle cannot be made ([`bundle_for`]) or a threads API record's schema names
/// a definition the document does not have.
pub fn openapi() -> Result<Value, SchemaError> {
    let mut schemas = Map::new();
    // The protocol's definitions, as the published 1.1 bundle has them.
    let bundle = bundle_for(ProtocolVersion::V1_1)?;
    let defs = bundle
        .get("$defs")
        .and_then(Value::as_object)
        .ok_or_else(|| err("the bundle has no $defs"))?;
    for (name, def) in defs {
        let mut def = def.clone();
        rebase(&mut def);
        schemas.insert(name.clone(), def);
    }
    // The threads API's records, derived; a definition the bundle has is the bundle's.
    let mut g = SchemaSettings::draft2020_12()
        .with(|s| s.definitions_path = "/components/schemas/".into())
        .into_generator();
    macro_rules! register {
        ($($t:ty),* $(,)?) => {
            $( let _ = g.subschema_for::<$t>(); )*
        };
    }
    register!(
        RunPhase,
        RunEndKind,
        RunSummary,
        ThreadSummary,
        RunRecord,
        ThreadDetail,
        ThreadPage,
        ThreadPatch
    );
    for (name, mut def) in g.take_definitions(true) {
        if schemas.contains_key(&name) {
            continue;
        }
        strip_meta(&mut def);
        schemas.insert(name, def);
    }
    schemas.insert("Refusal".to_owned(), refusal());
    schemas.insert("StopAnswer".to_owned(), stop_answer());
    let doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "AG-UI agent (ag-ui-server)",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The routes ag-ui-server answers below an agent's path: the AG-UI run \
                            endpoint (POST the RunAgentInput, read the events as SSE) and, with \
                            resumable runs, joining and stopping runs, the threads API and the \
                            capabilities. Paths are relative to the agent's path. Every refusal \
                            is JSON with a `code`.",
        },
        "servers": [{"url": "/"}],
        "paths": paths(),
        "components": {"schemas": schemas},
    });
    check_refs(&doc)?;
    Ok(doc)
}

/// [`openapi`] as the published file's text: pretty JSON, a final newline.
///
/// # Errors
/// As [`openapi`].
pub fn openapi_text() -> Result<String, SchemaError> {
    let mut text = serde_json::to_string_pretty(&openapi()?)
        .map_err(|e| err(format!("cannot print the OpenAPI document: {e}")))?;
    text.push('\n');
    Ok(text)
}

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("{COMPONENTS}{name}")})
}

fn json_content(name: &str) -> Value {
    json!({"application/json": {"schema": schema_ref(name)}})
}

fn sse_content() -> Value {
    json!({SSE: {"schema": {
        "type": "string",
        "description": "Server-Sent Events: each `data:` line one AG-UI event (the Event \
                        schema) as JSON; `id:` lines are cursors to resume from."
    }}})
}

/// The answer for every status a route documents no other answer for: a JSON refusal.
fn refusals() -> Value {
    json!({"description": "A refusal (4xx) or a failure (5xx), with its code.",
           "content": json_content("Refusal")})
}

fn path_id(name: &str, what: &str) -> Value {
    json!({"name": name, "in": "path", "required": true,
           "description": format!("{what} (percent-decoded; at most 1024 bytes)"),
           "schema": {"type": "string", "minLength": 1}})
}

fn paths() -> Value {
    let run_id = path_id("runId", "The run's id");
    let thread_id = path_id("threadId", "The thread's id");
    let multitask: Vec<&str> = Multitask::ALL.iter().map(|m| m.as_str()).collect();
    json!({
        "/": {"post": {
            "operationId": "startRun",
            "summary": "Start a run: POST the RunAgentInput, read its events as SSE.",
            "parameters": [{"name": "multitask", "in": "query", "required": false,
                            "description": "What to do when the thread has a run going on \
                                            (resumable runs; the service's policy otherwise).",
                            "schema": {"type": "string", "enum": multitask}}],
            "requestBody": {"required": true, "content": json_content("RunAgentInput")},
            "responses": {
                "200": {"description": "The run's events.", "content": sse_content()},
                "default": refusals(),
            },
        }},
        "/runs/{runId}/events": {"get": {
            "operationId": "joinRun",
            "summary": "Join a run: its events after a cursor, then live, to its end.",
            "parameters": [run_id.clone(),
                {"name": "after", "in": "query", "required": false,
                 "description": "The cursor to resume after (`Last-Event-ID` wins).",
                 "schema": {"type": "integer", "minimum": 0}},
                {"name": "Last-Event-ID", "in": "header", "required": false,
                 "schema": {"type": "string"}}],
            "responses": {
                "200": {"description": "The run's events after the cursor.",
                        "content": sse_content()},
                "default": refusals(),
            },
        }},
        "/runs/{runId}/stop": {"post": {
            "operationId": "stopRun",
            "summary": "Stop a run: its streams end with RUN_FINISHED, outcome cancelled.",
            "parameters": [run_id],
            "responses": {
                "202": {"description": "The run was running and is stopping.",
                        "content": json_content("StopAnswer")},
                "200": {"description": "The run had ended.",
                        "content": json_content("StopAnswer")},
                "default": refusals(),
            },
        }},
        "/threads": {"get": {
            "operationId": "listThreads",
            "summary": "The principal's threads, most recently updated first, a page at a time.",
            "description": "Each `metadata.KEY=VALUE` query parameter keeps the threads whose \
                            metadata has the string VALUE at KEY; several combine with AND.",
            "parameters": [
                {"name": "limit", "in": "query", "required": false,
                 "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_LIMIT,
                            "default": DEFAULT_LIST_LIMIT}},
                {"name": "cursor", "in": "query", "required": false,
                 "description": "A page's nextCursor, as it is.",
                 "schema": {"type": "string", "minLength": 1}},
                {"name": "archived", "in": "query", "required": false,
                 "schema": {"type": "string", "enum": ["false", "true", "any"],
                            "default": "false"}},
            ],
            "responses": {
                "200": {"description": "A page of threads.", "content": json_content("ThreadPage")},
                "default": refusals(),
            },
        }},
        "/threads/{threadId}": {
            "get": {
                "operationId": "getThread",
                "summary": "The thread: JSON, or the thread connect stream when Accept prefers SSE.",
                "parameters": [thread_id.clone()],
                "responses": {
                    "200": {"description": "The thread.",
                            "content": {
                                "application/json": {"schema": schema_ref("ThreadDetail")},
                                SSE: sse_content()[SSE].clone(),
                            }},
                    "default": refusals(),
                },
            },
            "patch": {
                "operationId": "updateThread",
                "summary": "Change the thread's title, metadata (replaced) or archived flag.",
                "parameters": [thread_id.clone()],
                "requestBody": {"required": true, "content": json_content("ThreadPatch")},
                "responses": {
                    "200": {"description": "The new summary.",
                            "content": json_content("ThreadSummary")},
                    "default": refusals(),
                },
            },
            "delete": {
                "operationId": "deleteThread",
                "summary": "Delete the thread with its runs (409 while a run goes on).",
                "parameters": [thread_id],
                "responses": {
                    "204": {"description": "Deleted."},
                    "default": refusals(),
                },
            },
        },
        "/threads/{threadId}/events": {"get": {
            "operationId": "followThread",
            "summary": "Follow a thread: every run started on it from now on, each from \
                        RUN_STARTED to its terminal event, by any client on any instance.",
            "parameters": [path_id("threadId", "The thread's id"),
                {"name": "Last-Event-ID", "in": "header", "required": false,
                 "description": "`{seq}.{cursor}` of the last event received: the stream \
                                 resumes after it.",
                 "schema": {"type": "string"}}],
            "responses": {
                "200": {"description": "The thread's runs as they start.",
                        "content": sse_content()},
                "default": refusals(),
            },
        }},
        "/capabilities": {"get": {
            "operationId": "getCapabilities",
            "summary": "What the agent and its transport can do.",
            "responses": {
                "200": {"description": "The capabilities.",
                        "content": json_content("AgentCapabilities")},
                "default": refusals(),
            },
        }},
        "/openapi.json": {"get": {
            "operationId": "getOpenApi",
            "summary": "This document, its server the agent's path.",
            "responses": {
                "200": {"description": "The OpenAPI document.",
                        "content": {"application/json": {"schema": {"type": "object"}}}},
                "default": refusals(),
            },
        }},
    })
}

/// The JSON body of every refusal.
fn refusal() -> Value {
    json!({
        "type": "object",
        "description": "A refusal: the HTTP status, a stable code, a sentence; `pointer` names \
                        the bad parameter or the JSON path of the bad body member.",
        "required": ["status", "code", "error", "message"],
        "properties": {
            "status": {"type": "integer", "minimum": 400, "maximum": 599},
            "code": {"type": "string"},
            "error": {"type": "string", "description": "The same as `code`."},
            "message": {"type": "string"},
            "pointer": {"type": "string"},
        },
    })
}

/// The JSON answer of a stop.
fn stop_answer() -> Value {
    json!({
        "type": "object",
        "required": ["runId", "status"],
        "properties": {
            "runId": {"type": "string"},
            "status": {"type": "string", "enum": ["stopping", "ended"]},
        },
        "additionalProperties": false,
    })
}

/// Points a bundle definition's references at the document's components and drops what
/// only a standalone bundle needs (`$anchor`).
fn rebase(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            obj.remove("$anchor");
            if let Some(Value::String(r)) = obj.get_mut("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
            {
                *r = format!("{COMPONENTS}{name}");
            }
            obj.values_mut().for_each(rebase);
        }
        Value::Array(items) => items.iter_mut().for_each(rebase),
        _ => {}
    }
}

/// Drops the `$schema` a derived definition may carry.
fn strip_meta(value: &mut Value) {
    if let Value::Object(obj) = value {
        obj.remove("$schema");
    }
}

/// Every `$ref` of the document names one of its components.
fn check_refs(doc: &Value) -> Result<(), SchemaError> {
    fn walk(v: &Value, schemas: &Map<String, Value>, at: &str) -> Result<(), SchemaError> {
        match v {
            Value::Object(obj) => {
                if let Some(Value::String(r)) = obj.get("$ref") {
                    let name = r.strip_prefix(COMPONENTS).unwrap_or(r);
                    if !schemas.contains_key(name) {
                        return Err(err(format!("{at}: $ref {r:?} names no component")));
                    }
                }
                for (k, v) in obj {
                    walk(v, schemas, &format!("{at}/{k}"))?;
                }
                Ok(())
            }
            Value::Array(items) => items
                .iter()
                .enumerate()
                .try_for_each(|(i, v)| walk(v, schemas, &format!("{at}/{i}"))),
            _ => Ok(()),
        }
    }
    let schemas = doc["components"]["schemas"]
        .as_object()
        .ok_or_else(|| err("the document has no components.schemas"))?;
    walk(doc, schemas, "")
}
