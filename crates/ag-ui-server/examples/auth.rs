//! An agent behind a bearer-token layer: a request without a known token is refused with
//! a JSON 401 before any run starts; an accepted one reaches the agent with its user in the
//! request's extensions, which the agent reads from its `RunContext`.
//!
//! `cargo run -p ag-ui-server --example auth -- [ADDR] [--token TOKEN=NAME]...`
//!
//! ADDR defaults to `127.0.0.1:0`; the bound address is the first line on stdout. Try it:
//! `curl -N -H 'authorization: Bearer s3cret' -H 'content-type: application/json'
//! -d '{"threadId":"t","runId":"r","messages":[]}' http://ADDR/` with `--token s3cret=ada`.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use ag_ui_builders::RunEmitter;
use ag_ui_core::RunAgentInput;
use ag_ui_server::serve::ServeConfig;
use ag_ui_server::{AgentStream, ContextAgent, Rejection, RunContext, emit};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The user a token stands for, put in the request's extensions by the layer.
#[allow(clippy::exhaustive_structs)]
#[derive(Debug, Clone)]
pub struct User {
    /// The user's name.
    pub name: String,
}

/// The app: the agent at `POST /`, behind the bearer-token layer for `tokens` (token to
/// user name).
pub fn app(tokens: HashMap<String, String>) -> axum::Router {
    let tokens = Arc::new(tokens);
    ag_ui_server::axum::router(ContextAgent::new(greeter)).layer(axum::middleware::from_fn(
        move |request: Request, next: Next| {
            let tokens = Arc::clone(&tokens);
            async move { authenticate(&tokens, request, next).await }
        },
    ))
}

/// Lets a request with a known bearer token through, its user in the extensions; answers
/// any other with the JSON 401 (and `www-authenticate: Bearer`).
async fn authenticate(
    tokens: &HashMap<String, String>,
    mut request: Request,
    next: Next,
) -> Response {
    let user = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .and_then(|token| tokens.get(token.trim()));
    match user {
        Some(name) => {
            request.extensions_mut().insert(User { name: name.clone() });
            next.run(request).await
        }
        None => {
            let mut refusal = Rejection::unauthorized("Bearer");
            refusal.message = "send a known bearer token in the Authorization header".into();
            refusal.into_response()
        }
    }
}

/// The agent: greets the user the layer found.
fn greeter(input: RunAgentInput, context: RunContext) -> AgentStream {
    let name = context
        .extensions()
        .get::<User>()
        .map_or_else(|| "stranger".to_owned(), |u| u.name.clone());
    emit(RunEmitter::start_for(&input), |mut run| async move {
        run.emit(|r| r.text(format!("Hello, {name}!"))).await?;
        run.emit(RunEmitter::finish).await
    })
}

#[allow(dead_code)] // the tests include this file for `app`
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut addr = "127.0.0.1:0".to_owned();
    let mut tokens = HashMap::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--token" => {
                let value = args.next().ok_or("--token needs TOKEN=NAME")?;
                let (token, name) = value.split_once('=').ok_or("--token needs TOKEN=NAME")?;
                tokens.insert(token.to_owned(), name.to_owned());
            }
            "--help" | "-h" => {
                println!("usage: auth [ADDR] [--token TOKEN=NAME]...");
                return Ok(());
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}").into()),
            _ => addr = arg,
        }
    }
    let config = ServeConfig::new();
    let listener = config.bind(&addr).await?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", listener.local_addr()?)?;
    out.flush()?;
    drop(out);
    ag_ui_server::axum::serve_with(listener, app(tokens), config).await?;
    Ok(())
}
