//! Rig tools as backend tools ([`RigTools::rig_tool`]).

use std::sync::Arc;

use ag_ui_agent::{BackendTools, ToolContext, ToolFuture};
use ag_ui_core::Tool;
use rig_core::tool::ErasedTool;

/// Rig tools among the [`BackendTools`]: `BackendTools::new().rig_tool(MyTool)`.
pub trait RigTools: Sized {
    /// Adds a rig tool, run in the server like the other backend tools: its name,
    /// description and parameter schema are rig's; rig parses its arguments and maps its
    /// errors; its output is rendered as rig renders it for a model. (Rig's own tool
    /// context is a fresh one for each call; the run's [`ToolContext`] is not given to a
    /// rig tool.)
    #[must_use]
    fn rig_tool<T: rig_core::tool::Tool + 'static>(self, tool: T) -> Self;
}

impl RigTools for BackendTools {
    fn rig_tool<T: rig_core::tool::Tool + 'static>(self, tool: T) -> Self {
        let described = Tool::new(ErasedTool::name(&tool), ErasedTool::description(&tool))
            .with_parameters(ErasedTool::parameters(&tool));
        let tool = Arc::new(tool);
        self.raw(
            described,
            move |arguments: String, _ctx: ToolContext| -> ToolFuture {
                let tool = Arc::clone(&tool);
                Box::pin(async move {
                    let mut context = rig_core::tool::ToolContext::new();
                    let result = ErasedTool::execute(&*tool, arguments, &mut context).await;
                    match result.into_result() {
                        Ok(output) => Ok(output.render()),
                        Err(e) => Err(e
                            .model_feedback()
                            .map_or_else(|| e.message().to_owned(), str::to_owned)
                            .into()),
                    }
                })
            },
        )
    }
}
