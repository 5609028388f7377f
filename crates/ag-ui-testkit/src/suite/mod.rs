//! The model-agent suite: the scenarios every model adapter passes, end to end. A local
//! provider ([`crate::provider`]) streams the chat-completions wire format to the adapter's
//! real client, the adapter's model is driven by the shared loop
//! ([`ag_ui_agent::ModelAgent`], see [`agent`]) behind the ag-ui-server axum router, and
//! the workspace's client runs it over loopback.
//!
//! An adapter's `tests/it` runs the whole suite with [`model_agent_suite!`](crate::model_agent_suite),
//! given a function from the provider to its model pointed at it:
//!
//! ```text
//! fn model(provider: &Provider) -> OpenAiModel {
//!     let config = OpenAIConfig::new().with_api_base(provider.base_url()).with_api_key("sk-test");
//!     OpenAiModel::new(Client::with_config(config), MODEL)
//! }
//! mod suite {
//!     ag_ui_testkit::model_agent_suite!(super::model);
//! }
//! ```

pub mod scenarios;
mod served;

pub use served::{
    AddTodo, Served, WeatherArgs, agent, backend_tools, confirm_tool, drain, of_type, types,
};

/// Every scenario of [`scenarios`] as a `#[tokio::test]`, run on the model `$model` makes:
/// a path to a `fn(&Provider) -> M` where `M: ag_ui_agent::CompletionModel` (the
/// adapter's model pointed at the provider's [`base_url`](crate::provider::Provider::base_url)).
/// Expand it in a module of the test binary; the binary depends on `tokio` (with `macros`).
#[macro_export]
macro_rules! model_agent_suite {
    ($model:path) => {
        $crate::model_agent_suite!(@tests $model;
            plain_text,
            frontend_tool_then_result,
            backend_tool_loop,
            backend_tool_patches_state,
            tool_context_sees_the_run,
            unknown_tool_is_answered_with_an_error,
            step_limit,
            cancelled_while_the_model_streams,
            cancelled_while_a_backend_tool_runs,
            usage_details,
            reasoning_is_streamed,
            refusal_is_shown,
            length_ending,
            content_filter_ending,
            provider_error_mid_stream,
            provider_refuses,
            stream_cut,
            parallel_calls_one_answered,
            unanswered_frontend_call_then_a_user_message,
            repairs_are_logged_at_warn,
        );

        #[tokio::test]
        async fn parallel_tool_calls() {
            $crate::suite::scenarios::parallel_tool_calls(|p: &$crate::provider::Provider, n| {
                $crate::suite::agent($model(p), n)
            })
            .await;
        }

        /// A run cut before any argument of a tool call arrived, then a new message.
        #[tokio::test]
        async fn cut_with_empty_arguments_does_not_poison_the_thread() {
            $crate::suite::scenarios::cut_in_a_tool_call_then_a_new_message(
                |p: &$crate::provider::Provider, n| $crate::suite::agent($model(p), n),
                "",
            )
            .await;
        }

        /// A run cut in the middle of a tool call's arguments, then a new message.
        #[tokio::test]
        async fn cut_with_partial_arguments_does_not_poison_the_thread() {
            $crate::suite::scenarios::cut_in_a_tool_call_then_a_new_message(
                |p: &$crate::provider::Provider, n| $crate::suite::agent($model(p), n),
                "{\"city\":\"Os",
            )
            .await;
        }

        #[test]
        fn the_local_provider_refuses_what_openai_refuses() {
            $crate::suite::scenarios::the_provider_refuses_what_openai_refuses();
        }
    };
    (@tests $model:path; $($scenario:ident,)*) => {
        $(
            #[tokio::test]
            async fn $scenario() {
                $crate::suite::scenarios::$scenario(|p: &$crate::provider::Provider, n| {
                    $crate::suite::agent($model(p), n)
                })
                .await;
            }
        )*
    };
}
