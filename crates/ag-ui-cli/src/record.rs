//! `ag-ui record`: a run saved as JSON Lines of `{"ms": N, "event": EVENT}`; `ag-ui replay`:
//! a recording served as an AG-UI endpoint, at its pace, with the request's ids.

use std::convert::Infallible;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};

use crate::cli::{RecordArgs, ReplayArgs};
use crate::exit::Exit;
use crate::input;
use crate::run;

/// Runs `ag-ui record`.
pub(crate) async fn record(args: RecordArgs) -> Exit {
    let text = match input::input_file(&args.prompt) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let file = match std::fs::File::create(&args.output) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("ag-ui: cannot create {}: {e}", args.output.display());
            return Exit::Usage;
        }
    };
    let mut out = std::io::BufWriter::new(file);
    let mut agent = match input::agent(&args.target) {
        Ok(a) => a,
        Err(e) => return e,
    };
    let started = match input::start(&mut agent, &args.prompt, &args.extras, text.as_deref()) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let end = run::drive(started, false, Some(&mut out)).await;
    if let Err(e) = out.flush() {
        eprintln!("ag-ui: cannot write {}: {e}", args.output.display());
        return Exit::Usage;
    }
    match end {
        Some(end) => run::report_end(&end, false),
        None => Exit::Ok,
    }
}

/// One recorded event: when, and the event as recorded.
#[derive(Debug, Clone)]
struct Recorded {
    ms: u64,
    event: Value,
}

/// A recording, ready to serve.
#[derive(Debug)]
struct Recording {
    events: Vec<Recorded>,
    /// The recorded `threadId` and `runId` (of the first `RUN_STARTED`).
    thread_id: Option<String>,
    run_id: Option<String>,
    speed: f64,
}

/// Reads a recording: JSON Lines of `{"ms": N, "event": EVENT}` or of plain events (sent
/// without pauses).
fn read_recording(text: &str) -> Result<Vec<Recorded>, String> {
    let mut events = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", n + 1))?;
        let (ms, event) = match value {
            Value::Object(mut o) if !o.contains_key("type") && o.contains_key("event") => {
                let ms = o.get("ms").and_then(Value::as_u64).unwrap_or(0);
                (ms, o.remove("event").unwrap_or(Value::Null))
            }
            other => (0, other),
        };
        if !event.get("type").is_some_and(Value::is_string) {
            return Err(format!("line {}: `/event/type` is not a string", n + 1));
        }
        events.push(Recorded { ms, event });
    }
    if events.is_empty() {
        return Err("no events".to_owned());
    }
    Ok(events)
}

/// Runs `ag-ui replay`.
pub(crate) async fn replay(args: ReplayArgs) -> Exit {
    let text = match std::fs::read_to_string(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ag-ui: cannot read {}: {e}", args.file.display());
            return Exit::Usage;
        }
    };
    let events = match read_recording(&text) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("ag-ui: {} is not a recording: {e}", args.file.display());
            return Exit::Usage;
        }
    };
    if !(args.speed >= 0.0 && args.speed.is_finite()) {
        eprintln!("ag-ui: --speed must be a number ≥ 0");
        return Exit::Usage;
    }
    let started = events
        .iter()
        .find(|r| r.event["type"] == "RUN_STARTED")
        .map(|r| r.event.clone());
    let recording = Arc::new(Recording {
        thread_id: started
            .as_ref()
            .and_then(|e| e["threadId"].as_str())
            .map(str::to_owned),
        run_id: started
            .as_ref()
            .and_then(|e| e["runId"].as_str())
            .map(str::to_owned),
        events,
        speed: args.speed,
    });
    let listener = match tokio::net::TcpListener::bind(&args.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ag-ui: cannot listen on {}: {e}", args.listen);
            return Exit::Transport;
        }
    };
    match listener.local_addr() {
        Ok(addr) => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{addr}");
            let _ = out.flush();
        }
        Err(e) => {
            eprintln!("ag-ui: cannot read the address listened on: {e}");
            return Exit::Transport;
        }
    }
    loop {
        let (socket, _) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("ag-ui: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let recording = recording.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| answer(req, recording.clone()));
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(socket), service)
                .await;
        });
    }
}

/// The longest pause a replay makes before an event.
const MAX_PAUSE: Duration = Duration::from_secs(24 * 60 * 60);

/// The body of every answer.
type Body = BoxBody<Bytes, Infallible>;

/// An answer with CORS headers (a frontend on another origin can use the replay).
fn response(status: StatusCode, content_type: &str, body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    let h = r.headers_mut();
    for (k, v) in [
        ("content-type", content_type),
        ("access-control-allow-origin", "*"),
        ("access-control-allow-headers", "*"),
        ("access-control-allow-methods", "POST, OPTIONS"),
        ("cache-control", "no-cache"),
    ] {
        if let Ok(v) = hyper::header::HeaderValue::from_str(v) {
            h.insert(k, v);
        }
    }
    r
}

/// A JSON error answer.
fn error(status: StatusCode, code: &str, message: &str, pointer: Option<&str>) -> Response<Body> {
    let doc = json!({
        "status": status.as_u16(),
        "error": code,
        "message": message,
        "pointer": pointer,
    });
    response(
        status,
        "application/json",
        Full::new(Bytes::from(doc.to_string())).boxed(),
    )
}

/// Answers one request: `POST` on any path with a run input streams the recording.
async fn answer(
    req: Request<Incoming>,
    recording: Arc<Recording>,
) -> Result<Response<Body>, Infallible> {
    if req.method() == Method::OPTIONS {
        return Ok(response(
            StatusCode::NO_CONTENT,
            "text/plain",
            Full::new(Bytes::new()).boxed(),
        ));
    }
    if req.method() != Method::POST {
        return Ok(error(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "a replay answers POST of a RunAgentInput",
            None,
        ));
    }
    let body = match Limited::new(req.into_body(), 16 << 20).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            return Ok(error(
                StatusCode::BAD_REQUEST,
                "invalid_body",
                &format!("cannot read the body: {e}"),
                None,
            ));
        }
    };
    let input: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return Ok(error(
                StatusCode::BAD_REQUEST,
                "invalid_body",
                &format!("the body is not JSON: {e}"),
                None,
            ));
        }
    };
    let ids =
        ["threadId", "runId"].map(|k| input.get(k).and_then(Value::as_str).map(str::to_owned));
    let [Some(thread_id), Some(run_id)] = ids else {
        let pointer = if input.get("threadId").and_then(Value::as_str).is_none() {
            "/threadId"
        } else {
            "/runId"
        };
        return Ok(error(
            StatusCode::BAD_REQUEST,
            "invalid_body",
            &format!("`{pointer}` is not a string"),
            Some(pointer),
        ));
    };
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        let begun = tokio::time::Instant::now();
        for r in &recording.events {
            if recording.speed > 0.0 {
                // A pause longer than a day is a day (and no arithmetic overflows).
                let at = Duration::try_from_secs_f64(r.ms as f64 / 1000.0 / recording.speed)
                    .unwrap_or(MAX_PAUSE)
                    .min(MAX_PAUSE);
                tokio::time::sleep_until(begun + at).await;
            }
            let mut event = r.event.clone();
            rename_ids(&mut event, &recording, &thread_id, &run_id);
            if tx
                .send(Bytes::from(format!("data: {event}\n\n")))
                .await
                .is_err()
            {
                return; // the client went away
            }
        }
    });
    let frames = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
    });
    Ok(response(
        StatusCode::OK,
        "text/event-stream",
        BodyExt::boxed(StreamBody::new(frames)),
    ))
}

/// Replaces the recorded thread and run ids by the request's: `threadId` and `runId` equal
/// to the recorded ones, and ids derived from the recorded run id (`<runId>-msg-1`), in
/// every member but the payloads (text deltas, contents, state, values, results).
fn rename_ids(event: &mut Value, recording: &Recording, thread_id: &str, run_id: &str) {
    const PAYLOADS: [&str; 9] = [
        "delta",
        "content",
        "snapshot",
        "value",
        "result",
        "encryptedValue",
        "state",
        "rawEvent",
        "event",
    ];
    match event {
        Value::Object(o) => {
            for (k, v) in o.iter_mut() {
                if PAYLOADS.contains(&k.as_str()) {
                    continue;
                }
                if let Value::String(s) = v {
                    if recording.thread_id.as_deref() == Some(s.as_str()) {
                        *s = thread_id.to_owned();
                    } else if let Some(old) = recording
                        .run_id
                        .as_deref()
                        .filter(|r| !r.is_empty() && s.contains(*r))
                    {
                        *s = s.replace(old, run_id);
                    }
                } else {
                    rename_ids(v, recording, thread_id, run_id);
                }
            }
        }
        Value::Array(a) => {
            for v in a {
                rename_ids(v, recording, thread_id, run_id);
            }
        }
        _ => {}
    }
}
