//! The first release's names still compile and do what the new ones do: the root paths of
//! the interrupt and outcome helpers, and the emitter's old method names.
#![allow(deprecated)]

use ag_ui_builders::{RunEmitter, SequentialIds, interrupt, outcome};
use ag_ui_core::Interrupt;
use serde_json::json;

#[test]
fn root_paths_of_interrupt_and_outcome_helpers_name_the_moved_functions() {
    assert_eq!(ag_ui_builders::success(), outcome::success());
    assert_eq!(ag_ui_builders::cancelled(), outcome::cancelled());
    assert_eq!(
        ag_ui_builders::success_pending(["call-1"]),
        outcome::success_pending(["call-1"])
    );
    let asked = [Interrupt::new("int-1", "confirmation")];
    assert_eq!(
        ag_ui_builders::interrupted(asked.clone()).unwrap(),
        outcome::interrupted(asked.clone()).unwrap()
    );
    assert_eq!(
        ag_ui_builders::subagent_success(),
        outcome::subagent_success()
    );
    assert_eq!(
        ag_ui_builders::subagent_suspended(["int-1"]),
        outcome::subagent_suspended(["int-1"])
    );
    assert_eq!(
        ag_ui_builders::interrupt("int-1", "why", "What?"),
        interrupt::interrupt("int-1", "why", "What?")
    );
    assert_eq!(
        ag_ui_builders::confirmation("int-1", "Sure?"),
        interrupt::confirmation("int-1", "Sure?")
    );
    assert_eq!(
        ag_ui_builders::tool_approval("int-1", "call-1", "Run?"),
        interrupt::tool_approval("int-1", "call-1", "Run?")
    );
    assert_eq!(
        ag_ui_builders::input_required("int-1", "Which?", json!({})).unwrap(),
        interrupt::input_required("int-1", "Which?", json!({})).unwrap()
    );
    assert_eq!(
        ag_ui_builders::resolve("int-1", json!(1)),
        interrupt::resolve("int-1", json!(1))
    );
    assert_eq!(ag_ui_builders::cancel("int-1"), interrupt::cancel("int-1"));
    assert_eq!(
        ag_ui_builders::resolve_all(&asked, |_| json!(true)),
        interrupt::resolve_all(&asked, |_| json!(true))
    );
    assert_eq!(
        ag_ui_builders::cancel_all(&asked),
        interrupt::cancel_all(&asked)
    );
    assert_eq!(
        ag_ui_builders::resume("int-1", ag_ui_core::ResumeStatus::Cancelled, None),
        interrupt::resume("int-1", ag_ui_core::ResumeStatus::Cancelled, None)
    );
}

/// The same run, once with the old method names and once with the new ones.
#[test]
fn old_emitter_method_names_emit_what_the_new_ones_do() {
    let old = {
        let mut run = RunEmitter::start("t", "r").with_ids(SequentialIds::new());
        run.step_started("plan").unwrap();
        run.text_with_id("msg-a", "Hi").unwrap();
        run.close_text_message("msg-a").unwrap();
        let call = run.tool_call("search", "{}").unwrap();
        run.tool_result(call, "ok").unwrap();
        run.text("done").unwrap();
        run.end_turn().unwrap();
        run.step_finished("plan").unwrap();
        run.finish().unwrap();
        run.into_events()
    };
    let new = {
        let mut run = RunEmitter::start("t", "r").with_ids(SequentialIds::new());
        run.step_start("plan").unwrap();
        run.text_with_id("msg-a", "Hi").unwrap();
        run.text_message_end("msg-a").unwrap();
        let call = run.tool_call("search", "{}").unwrap();
        run.tool_call_result(call, "ok").unwrap();
        run.text("done").unwrap();
        run.close_turn().unwrap();
        run.step_finish("plan").unwrap();
        run.finish().unwrap();
        run.into_events()
    };
    assert_eq!(
        serde_json::to_value(&old).unwrap(),
        serde_json::to_value(&new).unwrap()
    );
    assert!(new.len() > 10, "{new:?}");
}

#[test]
fn old_provider_usage_setters_set_what_the_new_ones_do() {
    use ag_ui_builders::{Accounting, ProviderUsage};
    let old = ProviderUsage::new(100, 20)
        .model("openai", "gpt-5")
        .total(150)
        .reasoning(10)
        .cached(30)
        .cache_write(5)
        .reasoning_accounting(Accounting::Included)
        .cache_accounting(Accounting::Beside);
    let new = ProviderUsage::new(100, 20)
        .with_provider("openai")
        .with_model("gpt-5")
        .with_total_tokens(150)
        .with_reasoning_tokens(10)
        .with_cached_tokens(30)
        .with_cache_write_tokens(5)
        .with_reasoning_accounting(Accounting::Included)
        .with_cache_accounting(Accounting::Beside);
    assert_eq!(old, new);
    assert_eq!(new.provider.as_deref(), Some("openai"));
    assert_eq!(new.cache_write_tokens, Some(5));
}
