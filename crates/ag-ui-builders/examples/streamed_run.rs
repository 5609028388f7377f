//! An agent server's side of a run: a model's streamed output (thinking, text, a tool call,
//! usage) turned into AG-UI events and written as Server-Sent Events.
//!
//! Run with `cargo run -p ag-ui-builders --example streamed_run`.

use ag_ui_builders::{ModelChunk, ProviderUsage, RunEmitter, SequentialIds};
use serde_json::json;

/// What a model provider might stream for one call.
fn model_stream(round: u32) -> Vec<ModelChunk> {
    let usage = ProviderUsage::new(420, 36)
        .with_reasoning_tokens(12)
        .with_provider("openai")
        .with_model("gpt-5");
    if round == 0 {
        vec![
            ModelChunk::Thinking("The user wants the weather; ".into()),
            ModelChunk::Thinking("I should call the tool.".into()),
            ModelChunk::Text("Let me check ".into()),
            ModelChunk::Text("the weather.".into()),
            ModelChunk::ToolCallStart {
                id: "call_1".into(),
                name: "get_weather".into(),
            },
            ModelChunk::ToolCallDelta {
                id: "call_1".into(),
                delta: r#"{"city":"#.into(),
            },
            ModelChunk::ToolCallDelta {
                id: "call_1".into(),
                delta: r#""Amsterdam"}"#.into(),
            },
            ModelChunk::ToolCallEnd {
                id: "call_1".into(),
            },
            ModelChunk::EndTurn { usage: Some(usage) },
        ]
    } else {
        vec![
            ModelChunk::Text("It is 14 °C ".into()),
            ModelChunk::Text("in Amsterdam.".into()),
            ModelChunk::EndTurn {
                usage: Some(
                    ProviderUsage::new(480, 9)
                        .with_provider("openai")
                        .with_model("gpt-5"),
                ),
            },
        ]
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut out = std::io::stdout().lock();
    let mut run = RunEmitter::start("thread-1", "run-1").with_ids(SequentialIds::new());
    run.step_start("agent")?;
    for round in 0..2 {
        for chunk in model_stream(round) {
            run.push(chunk)?;
            // Write what this chunk produced right away.
            for event in run.drain() {
                ag_ui_core::sse::write_sse_frame(&mut out, &event)?;
            }
        }
        if round == 0 {
            // The backend runs the tool and reports its result and the new state.
            run.tool_call_result("call_1", r#"{"temperature":14}"#)?;
            run.state(&json!({"lastCity": "Amsterdam"}))?;
        }
    }
    run.step_finish("agent")?;
    run.finish()?;
    for event in run.drain() {
        ag_ui_core::sse::write_sse_frame(&mut out, &event)?;
    }
    Ok(())
}
