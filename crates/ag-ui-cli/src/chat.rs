//! `ag-ui chat`: a conversation on one thread. Interrupts are answered by asking the user,
//! frontend tool calls by a `--tool` command or by asking for the result; a cut run of a
//! resumable server is joined again by the client.

use std::process::Stdio;
use std::time::Duration;

use ag_ui_client::{RunOptions, RunOutcome};
use ag_ui_core::{Interrupt, ResumeEntry, ResumeStatus, Tool, ToolMessage};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines, Stdin};

use crate::cli::ChatArgs;
use crate::exit::Exit;
use crate::input;
use crate::render::{Paint, Style};
use crate::run;

/// How many runs one message may lead to (tool answers, resumes) before the chat asks the
/// user again.
const MAX_FOLLOW_UPS: usize = 16;

/// How long a `--tool` command may run.
const TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// Lines typed by the user.
type Input = Lines<BufReader<Stdin>>;

/// Runs `ag-ui chat`.
pub(crate) async fn chat(args: ChatArgs) -> Exit {
    let mut agent = match input::agent_on(&args.target, args.thread.as_deref()) {
        Ok(a) => a,
        Err(e) => return e,
    };
    // A kept thread is read back first: its messages and state, and a run still going on.
    if args.thread.is_some() {
        match run::drive(agent.connect_thread(), false, None).await {
            Some(end) if end.error.is_some() => return run::report_end(&end, false),
            Some(_) => {}
            None => return Exit::Ok,
        }
    }
    let tools: Vec<Tool> = args
        .tools
        .iter()
        .map(|(name, command)| {
            let description = if command.is_empty() {
                "Asks the user for the result".to_owned()
            } else {
                format!("Runs `{command}` on the user's machine")
            };
            Tool::new(name.as_str(), description).with_parameters(json!({"type": "object"}))
        })
        .collect();
    let options = || {
        let mut o = RunOptions::new().tools(tools.clone());
        if let Some(p) = &args.forwarded_props {
            o = o.forwarded_props(p.clone());
        }
        o
    };
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let paint = Paint::stderr();
    eprintln!(
        "{}",
        paint.paint(
            Style::Dim,
            &format!(
                "chatting with {} on thread {} (/state, /thread; end with Ctrl-D or /quit)",
                agent.url(),
                agent.thread_id().as_str()
            )
        )
    );
    let mut last = Exit::Ok;
    loop {
        let Some(text) = ask(&mut lines, "you> ").await else {
            return last;
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        match text {
            "/quit" | "/exit" => return last,
            "/state" => {
                println!("{}", agent.state());
                continue;
            }
            "/thread" => {
                println!(
                    "thread {}: {} messages",
                    agent.thread_id().as_str(),
                    agent.messages().len()
                );
                continue;
            }
            _ => {}
        }
        agent.add_user_message(text);
        let mut end = run::drive(agent.run(options()), false, None).await;
        let mut follow_ups = 0;
        loop {
            let Some(e) = end.take() else {
                return last;
            };
            last = run::report_end(&e, false);
            if e.error.is_some() || follow_ups == MAX_FOLLOW_UPS {
                break;
            }
            follow_ups += 1;
            match e.outcome {
                Some(RunOutcome::Interrupt { interrupts }) => {
                    let Some(answers) = answer_interrupts(&mut lines, &interrupts).await else {
                        return last;
                    };
                    end = match agent.resume_with(options().resume_all(answers)) {
                        Ok(r) => run::drive(r, false, None).await,
                        Err(err) => {
                            eprintln!("{}", paint.paint(Style::Bad, &format!("ag-ui: {err}")));
                            None
                        }
                    };
                    if end.is_none() {
                        break;
                    }
                }
                Some(RunOutcome::Success {
                    pending_tool_call_ids,
                    ..
                }) if !pending_tool_call_ids.is_empty() => {
                    for id in &pending_tool_call_ids {
                        let (name, arguments) = agent
                            .thread()
                            .tool_call(id.as_str())
                            .map(|c| (c.function.name.clone(), c.function.arguments.clone()))
                            .unwrap_or_default();
                        let Some(result) =
                            tool_result(&mut lines, &args.tools, &name, &arguments).await
                        else {
                            return last;
                        };
                        agent.add_message(ToolMessage::new(
                            format!("{}-result", id.as_str()),
                            result,
                            id.as_str(),
                        ));
                    }
                    end = run::drive(agent.run(options()), false, None).await;
                }
                _ => break,
            }
        }
    }
}

/// Asks for a line on stderr; `None` at the end of the input.
async fn ask(lines: &mut Input, prompt: &str) -> Option<String> {
    let mut err = tokio::io::stderr();
    let _ = err.write_all(prompt.as_bytes()).await;
    let _ = err.flush().await;
    lines.next_line().await.ok().flatten()
}

/// Asks how to answer each interrupt: Enter approves, `no` cancels, JSON is the payload,
/// other text is a string payload.
async fn answer_interrupts(
    lines: &mut Input,
    interrupts: &[Interrupt],
) -> Option<Vec<ResumeEntry>> {
    let paint = Paint::stderr();
    let mut answers = Vec::new();
    for i in interrupts {
        let mut head = format!("interrupt {} ({})", i.id.as_str(), i.reason);
        if let Some(m) = &i.message {
            head.push_str(&format!(": {m}"));
        }
        if let Some(s) = &i.response_schema {
            head.push_str(&format!("\n  answer schema: {}", Value::Object(s.clone())));
        }
        eprintln!("{}", paint.paint(Style::Warn, &head));
        let line = ask(lines, "  [Enter] approve, `no` cancel, or a JSON answer> ").await?;
        let line = line.trim();
        let entry = match line {
            "" | "y" | "yes" => ResumeEntry::new(i.id.clone(), ResumeStatus::Resolved)
                .with_payload(json!({"approved": true})),
            "n" | "no" => ResumeEntry::new(i.id.clone(), ResumeStatus::Cancelled),
            text => ResumeEntry::new(i.id.clone(), ResumeStatus::Resolved).with_payload(
                serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())),
            ),
        };
        answers.push(entry);
    }
    Some(answers)
}

/// The result of a frontend tool call: the `--tool` command's output, or the user's answer.
async fn tool_result(
    lines: &mut Input,
    commands: &[(String, String)],
    name: &str,
    arguments: &str,
) -> Option<String> {
    let paint = Paint::stderr();
    if let Some((_, command)) = commands.iter().find(|(n, c)| n == name && !c.is_empty()) {
        eprintln!(
            "{}",
            paint.paint(
                Style::Tool,
                &format!("running `{command}` for {name}({arguments})")
            )
        );
        return Some(run_tool(command, arguments).await);
    }
    ask(lines, &format!("result of {name}({arguments})> ")).await
}

/// Runs a `--tool` command in a shell, the arguments on stdin; its stdout, or what failed.
async fn run_tool(command: &str, arguments: &str) -> String {
    let child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return format!("error: cannot run `{command}`: {e}"),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(arguments.as_bytes()).await;
    }
    match tokio::time::timeout(TOOL_TIMEOUT, child.wait_with_output()).await {
        Err(_) => format!("error: `{command}` took longer than {TOOL_TIMEOUT:?}"),
        Ok(Err(e)) => format!("error: `{command}` failed: {e}"),
        Ok(Ok(out)) if out.status.success() => {
            String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
        }
        Ok(Ok(out)) => format!(
            "error: `{command}` exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        ),
    }
}
