//! `ag-ui threads`: the threads a server keeps, through the client's threads API.

use ag_ui_client::ClientError;
use ag_ui_core::Message;
use ag_ui_core::api::{Archived, ThreadQuery, ThreadSummary};
use serde_json::Value;

use crate::cli::{ThreadsAction, ThreadsArgs};
use crate::exit::Exit;
use crate::input;
use crate::render::{Paint, Style};

/// Runs `ag-ui threads`.
pub(crate) async fn threads(args: ThreadsArgs) -> Exit {
    let agent = match input::agent(&args.target) {
        Ok(a) => a,
        Err(e) => return e,
    };
    let api = agent.threads();
    let json = args.json;
    let result: Result<Value, ClientError> = match &args.action {
        ThreadsAction::List { archived, all } => {
            let mut query = ThreadQuery::new();
            query.archived = if *all {
                Archived::Any
            } else if *archived {
                Archived::Only
            } else {
                Archived::Exclude
            };
            match api.pages(query).collect().await {
                Ok(list) => {
                    if !json {
                        for t in &list {
                            println!("{}", summary_line(t));
                        }
                    }
                    Ok(to_json(&list))
                }
                Err(e) => Err(e),
            }
        }
        ThreadsAction::Show { id } => match api.get(id).await {
            Ok(detail) => {
                if !json {
                    println!("{}", summary_line(&detail.summary));
                    for m in &detail.messages {
                        println!("  {}", message_line(m));
                    }
                    println!("  state = {}", detail.state);
                }
                Ok(to_json(&detail))
            }
            Err(e) => Err(e),
        },
        ThreadsAction::Rename { id, title } => api.rename(id, title.as_deref()).await.map(|s| {
            if !json {
                println!("{}", summary_line(&s));
            }
            to_json(&s)
        }),
        ThreadsAction::Archive { id } | ThreadsAction::Restore { id } => {
            let archive = matches!(args.action, ThreadsAction::Archive { .. });
            api.archive(id, archive).await.map(|s| {
                if !json {
                    println!("{}", summary_line(&s));
                }
                to_json(&s)
            })
        }
        ThreadsAction::Delete { id } => api.delete(id).await.map(|()| {
            if !json {
                println!("deleted {id}");
            }
            serde_json::json!({"deleted": id})
        }),
    };
    match result {
        Ok(value) => {
            if json {
                println!("{value}");
            }
            Exit::Ok
        }
        Err(e) => {
            eprintln!(
                "{}",
                Paint::stderr().paint(Style::Bad, &format!("ag-ui: {e}"))
            );
            Exit::Transport
        }
    }
}

/// A record as JSON (the API's own shape).
fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// A thread in a line: id, title, runs, last run, archived.
fn summary_line(t: &ThreadSummary) -> String {
    let mut line = t.thread_id.clone();
    if let Some(title) = &t.title {
        line.push_str(&format!("  {title:?}"));
    }
    line.push_str(&format!("  {} runs", t.run_count));
    if let Some(last) = &t.last_run {
        let phase = to_json(&last.status);
        line.push_str(&format!(
            ", last {} {}",
            last.run_id,
            phase.as_str().unwrap_or("")
        ));
    }
    if t.archived {
        line.push_str("  (archived)");
    }
    line
}

/// A message in a line: role, then its text.
fn message_line(m: &Message) -> String {
    let value = ag_ui_core::write::to_string(m)
        .ok()
        .and_then(|s| serde_json::from_str::<Value>(&s).ok())
        .unwrap_or(Value::Null);
    let role = value["role"].as_str().unwrap_or("?").to_owned();
    let text = match &value["content"] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let calls: Vec<&str> = value["toolCalls"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["function"]["name"].as_str())
        .collect();
    let mut line = format!("{role}: {text}");
    if !calls.is_empty() {
        line.push_str(&format!(" → {}", calls.join(", ")));
    }
    line
}
