//! The commands and their flags.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Talk to any AG-UI agent, check a server or a recording against the protocol, record and
/// replay runs.
#[derive(Debug, Parser)]
#[command(name = "ag-ui", version, about, long_about = None)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// One run: stream the answer, then the outcome (exit 0 success, 2 RUN_ERROR,
    /// 3 interrupt, 4 cancelled, 5 transport or HTTP failure).
    Run(RunArgs),
    /// Check a server (URL) or a recorded stream (FILE: JSON Lines or raw SSE) against the
    /// protocol (exit 0 no error found, 1 errors found, 5 server unreachable).
    Check(CheckArgs),
    /// An interactive conversation on one thread, run after run.
    Chat(ChatArgs),
    /// One run, saved as JSON Lines of `{"ms": N, "event": EVENT}`.
    Record(RecordArgs),
    /// Serve a recording as an AG-UI endpoint (`POST` on any path).
    Replay(ReplayArgs),
    /// Print the protocol's JSON Schema (draft 2020-12).
    Schema(SchemaArgs),
    /// The threads a server keeps (the workspace server's threads API): list, show, rename,
    /// archive, restore, delete.
    Threads(ThreadsArgs),
    /// Drive load against an agent: many runs, concurrent, optionally cut and rejoined,
    /// followed and stopped (the resumable-runs extension); a report of rates, latencies,
    /// errors and stream integrity (exit 0 all good, 1 integrity failures, 5 HTTP or
    /// transport errors).
    Load(LoadArgs),
}

/// `ag-ui load`.
#[derive(Debug, Args)]
pub(crate) struct LoadArgs {
    /// The agent's URL (the endpoint that takes a `POST` of a `RunAgentInput`).
    pub(crate) url: String,
    /// An HTTP header sent with every request, as `NAME:VALUE` (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME:VALUE", value_parser = parse_header)]
    pub(crate) headers: Vec<(String, String)>,
    /// How many runs in all (default 100 without `--duration`).
    #[arg(long, value_name = "N", conflicts_with = "duration")]
    pub(crate) runs: Option<u64>,
    /// Start runs for this long (`30s`, `500ms`, `2m`, `1h`; a bare number is seconds),
    /// then let the runs in flight end.
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub(crate) duration: Option<std::time::Duration>,
    /// How many runs are in flight at once.
    #[arg(short = 'c', long, value_name = "C", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub(crate) concurrency: u64,
    /// The user message of every run (`hello` when neither this nor `--input` is given).
    #[arg(
        short = 'm',
        long = "message",
        value_name = "TEXT",
        conflicts_with = "input"
    )]
    pub(crate) message: Option<String>,
    /// A `RunAgentInput` JSON file, the template of every run (its `threadId` and `runId`
    /// are replaced by fresh ones for each run).
    #[arg(long, value_name = "FILE.json")]
    pub(crate) input: Option<PathBuf>,
    /// `forwardedProps` of every run (a JSON object), with `-m`.
    #[arg(long, value_name = "JSON", value_parser = parse_object, conflicts_with = "input")]
    pub(crate) forwarded_props: Option<serde_json::Value>,
    /// The `protocolVersion` a `-m` run declares (none by default, as a 1.0 client
    /// without the field; a server answers a 1.1 caller with 1.1 members, the
    /// `cancelled` outcome of a stopped run among them).
    #[arg(long, value_enum, value_name = "VERSION", conflicts_with = "input")]
    pub(crate) protocol: Option<Protocol>,
    /// Every run on this thread (by default each run has a thread of its own; a server
    /// that runs one run per thread refuses concurrent runs on one thread).
    #[arg(long, value_name = "ID")]
    pub(crate) thread: Option<String>,
    /// Seconds a run (its streams, rejoins and followers included) may take before it is
    /// given up.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub(crate) timeout: u64,
    /// Cut each run's `POST` stream after K events, then rejoin it with `GET
    /// {URL}/runs/{runId}/events` and `Last-Event-ID` (the resumable-runs extension).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) cut_after: Option<u64>,
    /// Where rejoins and followers go, round robin: agent URLs of other instances sharing
    /// the run store (comma-separated or repeated; default the agent URL).
    #[arg(long, value_name = "URL[,URL...]", value_delimiter = ',')]
    pub(crate) rejoin: Vec<String>,
    /// Per run, this many extra readers joining it from its start (`GET
    /// {URL}/runs/{runId}/events`), spread over the `--rejoin` URLs; each must read the
    /// run's events exactly.
    #[arg(long, value_name = "F", default_value_t = 0)]
    pub(crate) followers: u32,
    /// Stop each run after K events with `POST {URL}/runs/{runId}/stop`.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) stop_after: Option<u64>,
    /// A progress line on stderr every second even when stderr is not a terminal.
    #[arg(long)]
    pub(crate) progress: bool,
    /// Print the report as one JSON document.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `ag-ui threads`.
#[derive(Debug, Args)]
pub(crate) struct ThreadsArgs {
    /// Where the agent is (the threads are below it, at `{URL}/threads`).
    #[command(flatten)]
    pub(crate) target: Target,
    /// Print the answer as JSON.
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// What to do.
    #[command(subcommand)]
    pub(crate) action: ThreadsAction,
}

/// What `ag-ui threads` does.
#[derive(Debug, Subcommand)]
pub(crate) enum ThreadsAction {
    /// The threads, most recently updated first.
    List {
        /// Archived threads only (`--all`: archived or not).
        #[arg(long, conflicts_with = "all")]
        archived: bool,
        /// Every thread, archived or not.
        #[arg(long)]
        all: bool,
    },
    /// One thread: its messages and state.
    Show {
        /// The thread's id.
        id: String,
    },
    /// Sets the thread's title (none given: clears it).
    Rename {
        /// The thread's id.
        id: String,
        /// The new title.
        title: Option<String>,
    },
    /// Archives the thread.
    Archive {
        /// The thread's id.
        id: String,
    },
    /// Restores an archived thread.
    Restore {
        /// The thread's id.
        id: String,
    },
    /// Deletes the thread and its runs.
    Delete {
        /// The thread's id.
        id: String,
    },
}

/// `ag-ui schema`.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The protocol version whose schema to print.
    #[arg(long, value_enum, default_value_t = Protocol::V1_0)]
    pub(crate) protocol: Protocol,
}

/// Where to send a run and what to send.
#[derive(Debug, Args)]
pub(crate) struct Target {
    /// The agent's URL (the endpoint that takes a `POST` of a `RunAgentInput`).
    pub(crate) url: String,
    /// An HTTP header sent with every request, as `NAME:VALUE` (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME:VALUE", value_parser = parse_header)]
    pub(crate) headers: Vec<(String, String)>,
    /// Seconds without any byte from the server before a run is given up.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub(crate) idle_timeout: u64,
}

/// What the first run says.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub(crate) struct Prompt {
    /// The user message to send.
    #[arg(short = 'm', long = "message", value_name = "TEXT")]
    pub(crate) message: Option<String>,
    /// A `RunAgentInput` JSON file to send as it is (ids and history included).
    #[arg(long, value_name = "FILE.json")]
    pub(crate) input: Option<PathBuf>,
}

/// What a `-m` run sends besides the message.
#[derive(Debug, Args)]
pub(crate) struct Extras {
    /// `forwardedProps` of the run (a JSON object), with `-m`.
    #[arg(long, value_name = "JSON", value_parser = parse_object, conflicts_with = "input")]
    pub(crate) forwarded_props: Option<serde_json::Value>,
}

/// `ag-ui run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Where to send the run.
    #[command(flatten)]
    pub(crate) target: Target,
    /// What to send.
    #[command(flatten)]
    pub(crate) prompt: Prompt,
    /// What else to send.
    #[command(flatten)]
    pub(crate) extras: Extras,
    /// The transport to ask for: `sse` (`Accept: text/event-stream`) or `proto` (the
    /// protobuf transport, `application/vnd.ag-ui.event+proto`, SSE still admitted); the
    /// answer's `Content-Type` picks the reader.
    #[arg(long, value_enum, default_value_t = Accept::Sse)]
    pub(crate) accept: Accept,
    /// Print the events as JSON Lines on stdout (one event per line, nothing else).
    #[arg(long)]
    pub(crate) json: bool,
}

/// The transport `ag-ui run` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Accept {
    /// Server-Sent Events.
    Sse,
    /// The protobuf transport.
    Proto,
}

/// `ag-ui check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// A server's URL (`http://…`) or a recorded stream (a file of JSON Lines or raw SSE).
    pub(crate) target: String,
    /// An HTTP header sent with every request, as `NAME:VALUE` (repeatable).
    #[arg(long = "header", short = 'H', value_name = "NAME:VALUE", value_parser = parse_header)]
    pub(crate) headers: Vec<(String, String)>,
    /// The protocol version the checks follow (and the requests declare).
    #[arg(long, value_enum, default_value_t = Protocol::V1_0)]
    pub(crate) protocol: Protocol,
    /// Print the report as one JSON document.
    #[arg(long)]
    pub(crate) json: bool,
    /// Seconds a case may take before it is given up (a URL check).
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub(crate) timeout: u64,
    /// Seconds of silence in an open run after which a keep-alive is expected.
    #[arg(long, value_name = "SECONDS", default_value_t = 15)]
    pub(crate) keep_alive: u64,
}

/// `ag-ui chat`.
#[derive(Debug, Args)]
pub(crate) struct ChatArgs {
    /// Where to send the runs.
    #[command(flatten)]
    pub(crate) target: Target,
    /// A frontend tool to declare, as `NAME=COMMAND` or `NAME` (repeatable): a call of it
    /// runs COMMAND in a shell with the call's arguments (JSON) on stdin, its stdout the
    /// result; without a command the result is asked for.
    #[arg(long = "tool", value_name = "NAME[=COMMAND]", value_parser = parse_tool)]
    pub(crate) tools: Vec<(String, String)>,
    /// Continue a thread the server keeps (read back from `{URL}/threads/{ID}`) instead
    /// of starting a new one.
    #[arg(long, value_name = "ID")]
    pub(crate) thread: Option<String>,
    /// `forwardedProps` of every run (a JSON object).
    #[arg(long, value_name = "JSON", value_parser = parse_object)]
    pub(crate) forwarded_props: Option<serde_json::Value>,
}

/// `ag-ui record`.
#[derive(Debug, Args)]
pub(crate) struct RecordArgs {
    /// Where to send the run.
    #[command(flatten)]
    pub(crate) target: Target,
    /// What to send.
    #[command(flatten)]
    pub(crate) prompt: Prompt,
    /// What else to send.
    #[command(flatten)]
    pub(crate) extras: Extras,
    /// The file to write (JSON Lines of `{"ms": N, "event": EVENT}`).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub(crate) output: PathBuf,
}

/// `ag-ui replay`.
#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// The recording (JSON Lines of `{"ms": N, "event": EVENT}` or of plain events).
    pub(crate) file: PathBuf,
    /// The address to listen on (`127.0.0.1:0` picks a free port).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub(crate) listen: String,
    /// How much faster than recorded to send the events (`0` sends them at once).
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub(crate) speed: f64,
}

/// A protocol version the checks follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Protocol {
    /// AG-UI 1.0.
    #[value(name = "1.0")]
    V1_0,
    /// AG-UI 1.1.
    #[value(name = "1.1")]
    V1_1,
}

impl Protocol {
    /// As written in `protocolVersion`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Protocol::V1_0 => "1.0",
            Protocol::V1_1 => "1.1",
        }
    }

    /// The core crate's version.
    pub(crate) fn version(self) -> ag_ui_core::ProtocolVersion {
        match self {
            Protocol::V1_0 => ag_ui_core::ProtocolVersion::V1_0,
            Protocol::V1_1 => ag_ui_core::ProtocolVersion::V1_1,
        }
    }
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not NAME:VALUE"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{s}` has no header name before the `:`"));
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

/// `30s`, `500ms`, `2m`, `1h` or a bare number of seconds.
fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number
        .parse()
        .map_err(|_| format!("`{s}` is not a time such as 30s, 500ms, 2m"))?;
    let seconds = match unit.trim() {
        "" | "s" => n,
        "ms" => n / 1000.0,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        other => return Err(format!("`{other}` in `{s}` is no unit (ms, s, m, h)")),
    };
    if !seconds.is_finite() || seconds <= 0.0 || seconds > 1e9 {
        return Err(format!("`{s}` is not a positive time"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

fn parse_tool(s: &str) -> Result<(String, String), String> {
    let (name, command) = s.split_once('=').unwrap_or((s, ""));
    if name.trim().is_empty() {
        return Err(format!("`{s}` has no tool name"));
    }
    Ok((name.trim().to_owned(), command.trim().to_owned()))
}

fn parse_object(s: &str) -> Result<serde_json::Value, String> {
    match serde_json::from_str(s) {
        Ok(v @ serde_json::Value::Object(_)) => Ok(v),
        Ok(_) => Err("not a JSON object".to_owned()),
        Err(e) => Err(format!("not JSON: {e}")),
    }
}
