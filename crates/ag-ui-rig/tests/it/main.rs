//! Integration tests: `RigAgent` on rig's OpenAI chat-completions model against a local
//! OpenAI-compatible provider, served by the ag-ui-server axum router and run by the
//! workspace's client, all over loopback. The provider and the scenarios are those of
//! `ag-ui-openai`'s tests (the same wire).
#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::exhaustive_structs,
    clippy::exhaustive_enums,
    unreachable_pub,
    missing_docs,
    dead_code
)]

#[path = "../../../ag-ui-openai/tests/it/provider.rs"]
mod provider;
#[path = "../../../ag-ui-openai/tests/it/scenarios.rs"]
mod scenarios;

use ag_ui_rig::RigAgent;
use ag_ui_rig::rig_core::providers::openai::OpenAIConfig;
use serde_json::json;

use provider::{MODEL, Provider, backend_tools};

/// The agent under test: rig's OpenAI chat model pointed at the local provider by its base
/// URL.
fn agent(provider: &Provider, max_steps: usize) -> RigAgent {
    let model = OpenAIConfig::new("sk-test")
        .with_base_url(provider.base_url())
        .client()
        .chat(MODEL);
    RigAgent::new(model)
        .tools(backend_tools())
        .max_steps(max_steps)
        .state_in_prompt(true)
}

#[tokio::test]
async fn plain_text() {
    scenarios::plain_text(agent).await;
}

#[tokio::test]
async fn parallel_tool_calls_with_interleaved_arguments() {
    scenarios::parallel_tool_calls(agent).await;
}

#[tokio::test]
async fn frontend_tool_call_then_its_result_on_the_next_run() {
    scenarios::frontend_tool_then_result(agent).await;
}

#[tokio::test]
async fn backend_tool_loop_of_two_steps() {
    scenarios::backend_tool_loop(agent).await;
}

#[tokio::test]
async fn step_limit_ends_the_run() {
    scenarios::step_limit(agent).await;
}

#[tokio::test]
async fn usage_with_cached_and_reasoning_tokens() {
    scenarios::usage_details(agent).await;
}

#[tokio::test]
async fn refusal() {
    scenarios::refusal_is_shown(agent).await;
}

#[tokio::test]
async fn finish_reason_length() {
    scenarios::length_ending(agent).await;
}

#[tokio::test]
async fn provider_error_in_the_middle() {
    scenarios::provider_error_mid_stream(agent).await;
}

#[tokio::test]
async fn provider_refuses_the_request() {
    scenarios::provider_refuses(agent).await;
}

#[tokio::test]
async fn stream_cut_without_done() {
    scenarios::stream_cut(agent).await;
}

#[tokio::test]
async fn request_body_for_every_message_kind() {
    let (body, customs) = scenarios::history_request(agent).await;
    println!("{}", serde_json::to_string_pretty(&body).unwrap());
    println!("{}", serde_json::to_string_pretty(&customs).unwrap());
    let _ = json!({});
}
