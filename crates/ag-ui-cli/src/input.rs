//! Building the HTTP agent and the first run's input from the flags.

use std::time::Duration;

use ag_ui_client::{ClientError, HttpAgent, HttpRun, RunOptions};

use crate::cli::{Accept, Extras, Prompt, Target};
use crate::exit::Exit;

/// The HTTP agent for `target`: its URL, headers and idle timeout.
///
/// # Errors
/// The agent cannot be built (a bad URL, a header that is not valid HTTP): bad usage.
pub(crate) fn agent(target: &Target) -> Result<HttpAgent, Exit> {
    agent_on(target, None)
}

/// [`agent`] on the thread `thread_id` (a new thread when `None`).
///
/// # Errors
/// As [`agent`].
pub(crate) fn agent_on(target: &Target, thread_id: Option<&str>) -> Result<HttpAgent, Exit> {
    build(target, thread_id, false)
}

/// [`agent`] asking for the transport `accept` names.
///
/// # Errors
/// As [`agent`].
pub(crate) fn agent_accepting(target: &Target, accept: Accept) -> Result<HttpAgent, Exit> {
    build(target, None, accept == Accept::Proto)
}

fn build(target: &Target, thread_id: Option<&str>, proto: bool) -> Result<HttpAgent, Exit> {
    refuse_non_http_url(&target.url)?;
    let mut builder = HttpAgent::builder(target.url.as_str())
        .connect_timeout(Duration::from_secs(10))
        .idle_timeout(Duration::from_secs(target.idle_timeout.max(1)))
        .proto(proto);
    for (name, value) in &target.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    if let Some(id) = thread_id {
        builder = builder.thread_id(id);
    }
    builder.build().map_err(|e| {
        eprintln!("ag-ui: cannot use {}: {e}", target.url);
        Exit::Usage
    })
}

/// The text of the `--input` file, if one was given.
///
/// # Errors
/// The file cannot be read: bad usage.
pub(crate) fn input_file(prompt: &Prompt) -> Result<Option<String>, Exit> {
    let Some(path) = &prompt.input else {
        return Ok(None);
    };
    std::fs::read_to_string(path).map(Some).map_err(|e| {
        eprintln!("ag-ui: cannot read {}: {e}", path.display());
        Exit::Usage
    })
}

/// Starts the run `prompt` asks for: the `--input` document as it is, or the message.
///
/// # Errors
/// The input document is not a `RunAgentInput`: bad usage, with what is wrong and where.
pub(crate) fn start<'a>(
    agent: &'a mut HttpAgent,
    prompt: &Prompt,
    extras: &Extras,
    input: Option<&str>,
) -> Result<HttpRun<'a>, Exit> {
    match input {
        Some(json) => agent.run_json(json).map_err(|e: ClientError| {
            let path = prompt
                .input
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            eprintln!("ag-ui: {path} is not a run input: {e}");
            Exit::Usage
        }),
        None => {
            agent.add_user_message(prompt.message.clone().unwrap_or_default());
            let mut options = RunOptions::new();
            if let Some(p) = &extras.forwarded_props {
                options = options.forwarded_props(p.clone());
            }
            Ok(agent.run(options))
        }
    }
}

/// Whether this build speaks HTTPS.
const TLS: bool = cfg!(any(feature = "rustls", feature = "native-tls"));

/// Refuses what is not an agent's `http://` or `https://` URL (`127.0.0.1:8000` lacks the
/// scheme), and an `https://` URL in a build without TLS.
///
/// # Errors
/// Bad usage, saying which.
pub(crate) fn refuse_non_http_url(url: &str) -> Result<(), Exit> {
    let scheme = |s: &str| {
        url.get(..s.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(s))
    };
    if !scheme("http://") && !scheme("https://") {
        eprintln!("ag-ui: {url:?} is not a URL: give the agent as http://HOST:PORT/PATH");
        return Err(Exit::Usage);
    }
    refuse_https_without_tls(url)
}

/// Refuses an `https://` URL in a build without TLS, saying how to get one.
///
/// # Errors
/// Bad usage, when `url` is `https://` and this build has no TLS.
pub(crate) fn refuse_https_without_tls(url: &str) -> Result<(), Exit> {
    if !TLS
        && url
            .get(..8)
            .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
    {
        eprintln!(
            "ag-ui: {url} needs TLS, and this ag-ui was built without it: install it with \
             `cargo install --path crates/ag-ui-cli --features rustls` (or `native-tls`)"
        );
        return Err(Exit::Usage);
    }
    Ok(())
}
