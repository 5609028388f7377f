//! Showing a run to a person: streamed text, reasoning dimmed, tool calls with their
//! arguments, state changes as compact diffs, the outcome and usage at the end. Colours only
//! on a terminal (and never with `NO_COLOR` set).

use std::io::{IsTerminal, Write};

use ag_ui_client::{RunEnd, RunOutcome};
use ag_ui_core::{Event, TokenUsage};
use serde_json::Value;

/// A style of text.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Style {
    /// Reasoning, lifecycle notes.
    Dim,
    /// Roles and headings.
    Bold,
    /// Tool calls.
    Tool,
    /// State changes.
    State,
    /// Success.
    Good,
    /// Failures.
    Bad,
    /// Interrupts and warnings.
    Warn,
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Style::Dim => "\x1b[2m",
            Style::Bold => "\x1b[1m",
            Style::Tool => "\x1b[36m",
            Style::State => "\x1b[35m",
            Style::Good => "\x1b[32m",
            Style::Bad => "\x1b[31m",
            Style::Warn => "\x1b[33m",
        }
    }
}

/// Whether a stream (stdout or stderr) gets colours: a terminal, and `NO_COLOR` unset.
pub(crate) fn colours_for(terminal: bool) -> bool {
    terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Writes text in a style (plain when colours are off).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paint {
    on: bool,
}

impl Paint {
    /// Colours for stdout.
    pub(crate) fn stdout() -> Self {
        Paint {
            on: colours_for(std::io::stdout().is_terminal()),
        }
    }

    /// Colours for stderr.
    pub(crate) fn stderr() -> Self {
        Paint {
            on: colours_for(std::io::stderr().is_terminal()),
        }
    }

    /// `text` in `style`.
    pub(crate) fn paint(self, style: Style, text: &str) -> String {
        if self.on {
            format!("{}{text}\x1b[0m", style.code())
        } else {
            text.to_owned()
        }
    }

    /// The code that starts `style`, or nothing.
    fn start(self, style: Style) -> &'static str {
        if self.on { style.code() } else { "" }
    }

    /// The code that ends any style, or nothing.
    fn reset(self) -> &'static str {
        if self.on { "\x1b[0m" } else { "" }
    }
}

/// Shows the events of runs as they arrive.
#[derive(Debug)]
pub(crate) struct Renderer<W> {
    out: W,
    paint: Paint,
    /// Whether the cursor is in the middle of a line.
    mid_line: bool,
    /// The names of the tool calls seen, by id (a result names its tool).
    tools: std::collections::HashMap<String, String>,
}

impl<W: Write> Renderer<W> {
    /// A renderer writing to `out`.
    pub(crate) fn new(out: W, paint: Paint) -> Self {
        Renderer {
            out,
            paint,
            mid_line: false,
            tools: std::collections::HashMap::new(),
        }
    }

    /// Names the tool of a call started before this run (a result then names its tool).
    pub(crate) fn know_tool(&mut self, id: &str, name: &str) {
        self.tools
            .entry(id.to_owned())
            .or_insert_with(|| name.to_owned());
    }

    fn line(&mut self, text: &str) -> std::io::Result<()> {
        if self.mid_line {
            writeln!(self.out)?;
            self.mid_line = false;
        }
        writeln!(self.out, "{text}")
    }

    fn open(&mut self, head: &str, style: Option<Style>) -> std::io::Result<()> {
        if self.mid_line {
            writeln!(self.out)?;
        }
        let start = style.map_or("", |s| self.paint.start(s));
        write!(self.out, "{head}{start}")?;
        self.mid_line = true;
        Ok(())
    }

    fn more(&mut self, text: &str) -> std::io::Result<()> {
        write!(self.out, "{text}")
    }

    fn close(&mut self, tail: &str) -> std::io::Result<()> {
        writeln!(self.out, "{tail}{}", self.paint.reset())?;
        self.mid_line = false;
        Ok(())
    }

    /// Shows one event.
    pub(crate) fn event(&mut self, event: &Event) -> std::io::Result<()> {
        let p = self.paint;
        match event {
            Event::RunStarted(e) => self.line(&p.paint(
                Style::Dim,
                &format!(
                    "[run {} started on thread {}]",
                    e.run_id.as_str(),
                    e.thread_id.as_str()
                ),
            ))?,
            Event::TextMessageStart(e) => {
                let role = e.role.as_ref().map_or("assistant".to_owned(), |r| {
                    ag_ui_core::write::to_string(r)
                        .unwrap_or_default()
                        .trim_matches('"')
                        .to_owned()
                });
                // Only the role is bold; the text itself is plain.
                self.open(&format!("{}: ", p.paint(Style::Bold, &role)), None)?;
            }
            Event::TextMessageContent(e) => {
                if !self.mid_line {
                    self.open("", None)?;
                }
                self.more(&e.delta)?;
            }
            Event::TextMessageEnd(_) => self.close("")?,
            Event::ReasoningMessageStart(_) => {
                self.open("", Some(Style::Dim))?;
                self.more("(thinking: ")?;
            }
            Event::ReasoningMessageContent(e) => {
                if !self.mid_line {
                    self.open("", Some(Style::Dim))?;
                    self.more("(thinking: ")?;
                }
                self.more(&e.delta)?;
            }
            Event::ReasoningMessageEnd(_) => self.close(")")?,
            Event::ToolCallStart(e) => {
                self.tools
                    .insert(e.tool_call_id.as_str().to_owned(), e.tool_call_name.clone());
                self.open(
                    &format!(
                        "{} ",
                        p.paint(Style::Tool, &format!("→ {}", e.tool_call_name))
                    ),
                    Some(Style::Tool),
                )?;
            }
            Event::ToolCallArgs(e) => {
                if !self.mid_line {
                    self.open("  ", Some(Style::Tool))?;
                }
                self.more(&e.delta)?;
            }
            Event::ToolCallEnd(_) => self.close("")?,
            Event::ToolCallResult(e) => {
                let id = e.tool_call_id.as_str();
                let name = self.tools.get(id).map_or(id, String::as_str);
                let text = format!("← {name}: {}", content_text(&e.content));
                self.line(&p.paint(Style::Tool, &text))?;
            }
            Event::StateSnapshot(e) => {
                self.line(&p.paint(Style::State, &format!("state = {}", json_text(&e.snapshot))))?
            }
            Event::StateDelta(e) => {
                let ops = ag_ui_core::write::to_string(&e.delta)
                    .ok()
                    .and_then(|s| serde_json::from_str::<Value>(&s).ok())
                    .unwrap_or(Value::Null);
                for op in ops.as_array().into_iter().flatten() {
                    self.line(&p.paint(Style::State, &diff_line(op)))?;
                }
            }
            Event::MessagesSnapshot(e) => self.line(&p.paint(
                Style::Dim,
                &format!("[messages snapshot: {} messages]", e.messages.len()),
            ))?,
            Event::StepStarted(e) => {
                self.line(&p.paint(Style::Dim, &format!("[step {} …]", e.step_name)))?;
            }
            Event::StepFinished(e) => {
                self.line(&p.paint(Style::Dim, &format!("[step {} done]", e.step_name)))?;
            }
            Event::Custom(e) => self.line(&p.paint(
                Style::Dim,
                &format!("[custom {}: {}]", e.name, json_text(&e.value)),
            ))?,
            // The reasoning span frames the reasoning messages shown above; the outcome is
            // shown at the end.
            Event::ReasoningStart(_)
            | Event::ReasoningEnd(_)
            | Event::RunFinished(_)
            | Event::RunError(_) => {}
            other => {
                self.line(&p.paint(Style::Dim, &format!("[{}]", other.event_type().as_str())))?
            }
        }
        self.out.flush()
    }

    /// Shows how the run ended: outcome, usage, warnings, the client's error.
    pub(crate) fn end(&mut self, end: &RunEnd) -> std::io::Result<()> {
        let p = self.paint;
        match &end.outcome {
            Some(RunOutcome::Success {
                result,
                pending_tool_call_ids,
            }) => {
                let mut text = "✓ success".to_owned();
                if let Some(r) = result {
                    text.push_str(&format!(", result {}", json_text(r)));
                }
                if !pending_tool_call_ids.is_empty() {
                    let ids: Vec<&str> = pending_tool_call_ids.iter().map(|i| i.as_str()).collect();
                    text.push_str(&format!(", tool calls to answer: {}", ids.join(", ")));
                }
                self.line(&p.paint(Style::Good, &text))?;
            }
            Some(RunOutcome::Interrupt { interrupts }) => {
                self.line(&p.paint(Style::Warn, "⏸ interrupted"))?;
                for i in interrupts {
                    let mut text = format!("  {} ({})", i.id.as_str(), i.reason);
                    if let Some(m) = &i.message {
                        text.push_str(&format!(": {m}"));
                    }
                    self.line(&p.paint(Style::Warn, &text))?;
                }
            }
            Some(RunOutcome::Cancelled) => self.line(&p.paint(Style::Warn, "✗ cancelled"))?,
            Some(RunOutcome::Error { message, code }) => {
                let code = code
                    .as_deref()
                    .map(|c| format!(" [{c}]"))
                    .unwrap_or_default();
                self.line(&p.paint(Style::Bad, &format!("✗ RUN_ERROR{code}: {message}")))?;
            }
            None | Some(_) => {}
        }
        if !end.usage.is_empty() {
            let parts: Vec<String> = end.usage.iter().map(usage_text).collect();
            self.line(&p.paint(Style::Dim, &format!("usage: {}", parts.join("; "))))?;
        }
        self.out.flush()
    }
}

/// One token-usage entry in a line.
fn usage_text(u: &TokenUsage) -> String {
    let mut parts = Vec::new();
    match (&u.provider, &u.model) {
        (Some(p), Some(m)) => parts.push(format!("{p}/{m}")),
        (Some(x), None) | (None, Some(x)) => parts.push(x.clone()),
        (None, None) => {}
    }
    for (name, n) in [
        ("in", u.input_tokens),
        ("out", u.output_tokens),
        ("total", u.total_tokens),
        ("reasoning", u.reasoning_tokens),
        ("cached", u.cached_input_tokens),
    ] {
        if let Some(n) = n {
            parts.push(format!("{name} {n}"));
        }
    }
    parts.join(" ")
}

/// A JSON Patch operation as a diff line: `+ /a = 1`, `- /a`, `~ /a = 2`, `> /a → /b`.
fn diff_line(op: &Value) -> String {
    let s = |k: &str| op.get(k).and_then(Value::as_str).unwrap_or("?");
    let v = || op.get("value").map(json_text).unwrap_or_default();
    match s("op") {
        "add" => format!("+ {} = {}", s("path"), v()),
        "remove" => format!("- {}", s("path")),
        "replace" => format!("~ {} = {}", s("path"), v()),
        "move" => format!("> {} → {}", s("from"), s("path")),
        "copy" => format!("= {} → {}", s("from"), s("path")),
        "test" => format!("? {} == {}", s("path"), v()),
        other => format!("{other} {}", json_text(op)),
    }
}

/// Compact JSON text of a value.
pub(crate) fn json_text(value: &Value) -> String {
    value.to_string()
}

/// Text of a message content: the string, or its parts as JSON.
fn content_text(content: &ag_ui_core::Content) -> String {
    match content {
        ag_ui_core::Content::Text(t) => t.clone(),
        other => ag_ui_core::write::to_string(other).unwrap_or_default(),
    }
}
