//! `ToolContext`: what a backend tool knows of its run and how it changes the state.

use ag_ui_agent::{BackendTools, ToolAnswer, ToolContext};
use ag_ui_core::{JsonPatchOperation, Tool};
use serde_json::json;

#[test]
fn headers_are_read_case_insensitively_and_only_those_given() {
    let ctx = ToolContext::new("t-1", "r-1", json!({}))
        .with_principal("ada")
        .with_header("X-Tenant", "acme");
    assert_eq!(ctx.header("x-tenant"), Some("acme"));
    assert_eq!(ctx.header("X-TENANT"), Some("acme"));
    assert_eq!(ctx.header("authorization"), None);
    assert_eq!(ctx.principal(), Some("ada"));
    assert_eq!(ctx.thread_id().as_str(), "t-1");
    assert_eq!(ctx.run_id().as_str(), "r-1");
    assert!(!ctx.cancellation().is_cancelled());
}

#[test]
fn a_patch_that_does_not_apply_changes_nothing_and_names_the_operation() {
    let ctx = ToolContext::new("t-1", "r-1", json!({"todos": ["a"]}));
    let error = ctx
        .patch_state([
            JsonPatchOperation::add("/todos/-", "b"),
            JsonPatchOperation::remove("/missing"),
        ])
        .unwrap_err();
    assert_eq!(error.index, 1);
    assert_eq!(error.path, "/missing");
    assert_eq!(ctx.state(), json!({"todos": ["a"]}));
}

#[test]
fn the_state_is_shared_by_the_clones_of_a_context() {
    let ctx = ToolContext::new("t-1", "r-1", json!({"count": 1}));
    let clone = ctx.clone();
    clone.set_state(json!({"count": 2}));
    assert_eq!(ctx.state(), json!({"count": 2}));
    ctx.patch_state([JsonPatchOperation::replace("/count", 3)])
        .unwrap();
    assert_eq!(clone.state(), json!({"count": 3}));
}

#[tokio::test]
async fn an_unknown_tool_and_a_failing_tool_answer_errors() {
    let tools = BackendTools::new().raw(Tool::new("fail", "Fails"), |_args, _ctx| {
        Box::pin(async { Err("the disk is full".into()) })
    });
    let ctx = ToolContext::new("t-1", "r-1", json!({}));
    assert_eq!(
        tools.call("nope", "{}", ctx.clone()).await,
        ToolAnswer::Error("there is no tool named \"nope\"".into())
    );
    let answer = tools.call("fail", "{}", ctx).await;
    assert_eq!(answer, ToolAnswer::Error("the disk is full".into()));
    let content: serde_json::Value = serde_json::from_str(&answer.into_content()).unwrap();
    assert_eq!(content, json!({"error": "the disk is full"}));
}
