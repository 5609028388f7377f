//! Typed tools (feature `schemars`): a [`Tool`] whose `parameters` schema comes from a Rust
//! type deriving `schemars::JsonSchema`, and parsing a call's arguments into that type.

use std::fmt;
use std::marker::PhantomData;

use ag_ui_core::{FunctionCall, Tool, ToolCall};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::BuildError;
use crate::tool::parse_arguments;

/// The JSON Schema of `T` as tool parameters: draft 2020-12, sub-schemas inlined where
/// possible (what model providers handle best), without the root `$schema` keyword.
#[must_use]
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
pub fn parameters_schema<T: JsonSchema>() -> Value {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>();
    schema.remove("$schema");
    schema.to_value()
}

/// As [`parameters_schema`], cleaned with [`clean_schema`](crate::clean_schema): no
/// `title`, no `format` naming a number's machine type (`uint32`, `double`, …), which
/// model providers' tool schemas do not want.
#[must_use]
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
pub fn clean_parameters_schema<T: JsonSchema>() -> Value {
    crate::schema::clean_schema(parameters_schema::<T>())
}

/// A tool named `name` whose parameters are the schema of `T`.
#[must_use]
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
pub fn typed_tool<T: JsonSchema>(name: impl Into<String>, description: impl Into<String>) -> Tool {
    Tool::new(name, description).with_parameters(parameters_schema::<T>())
}

/// A tool together with the type of its arguments.
///
/// ```
/// use ag_ui_builders::{TypedTool, tool_call};
///
/// /// Arguments of `get_weather`.
/// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
/// struct WeatherArgs {
///     /// City name.
///     city: String,
/// }
///
/// let weather = TypedTool::<WeatherArgs>::new("get_weather", "Get the weather for a city");
/// assert_eq!(weather.tool().parameters.as_ref().unwrap()["required"][0], "city");
///
/// let args = weather.parse(&tool_call("call_1", "get_weather", r#"{"city":"Oslo"}"#))?;
/// assert_eq!(args.city, "Oslo");
///
/// let err = weather.parse(&tool_call("call_2", "get_weather", r#"{"city":7}"#)).unwrap_err();
/// assert_eq!(err.pointer(), Some("/city"));
/// # Ok::<(), ag_ui_builders::BuildError>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
pub struct TypedTool<T> {
    tool: Tool,
    args: PhantomData<fn() -> T>,
}

impl<T> fmt::Debug for TypedTool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedTool")
            .field("tool", &self.tool)
            .finish()
    }
}

impl<T> Clone for TypedTool<T> {
    fn clone(&self) -> Self {
        Self {
            tool: self.tool.clone(),
            args: PhantomData,
        }
    }
}

impl<T: JsonSchema + DeserializeOwned> TypedTool<T> {
    /// The tool `name` with the schema of `T` as its parameters.
    #[must_use]
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            tool: typed_tool::<T>(name, description),
            args: PhantomData,
        }
    }

    /// The same tool with its parameter schema cleaned with
    /// [`clean_schema`](crate::clean_schema) (no `title`, no numeric `format`), as LLM tool
    /// schemas want it.
    #[must_use]
    pub fn with_clean_schema(mut self) -> Self {
        self.tool.parameters = self.tool.parameters.take().map(crate::schema::clean_schema);
        self
    }

    /// The tool's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// The tool, to put in `RunAgentInput.tools` or `ToolsCapabilities.items`.
    #[must_use]
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// The tool, consumed.
    #[must_use]
    pub fn into_tool(self) -> Tool {
        self.tool
    }

    /// Parses a call of this tool.
    ///
    /// # Errors
    /// [`BuildError::WrongTool`] when the call names another tool; [`BuildError::Json`] naming the
    /// offending argument by JSON Pointer.
    pub fn parse(&self, call: &ToolCall) -> Result<T, BuildError> {
        if call.function.name != self.tool.name {
            return Err(BuildError::WrongTool {
                tool_call_id: call.id.to_string(),
                expected: self.tool.name.clone(),
                found: call.function.name.clone(),
            });
        }
        self.parse_arguments(&call.function.arguments)
    }

    /// Parses a function call of this tool (no id to report).
    ///
    /// # Errors
    /// As [`parse`](Self::parse).
    pub fn parse_function(&self, call: &FunctionCall) -> Result<T, BuildError> {
        if call.name != self.tool.name {
            return Err(BuildError::WrongTool {
                tool_call_id: String::new(),
                expected: self.tool.name.clone(),
                found: call.name.clone(),
            });
        }
        self.parse_arguments(&call.arguments)
    }

    /// Parses argument text (for instance the concatenated `TOOL_CALL_ARGS` deltas).
    ///
    /// # Errors
    /// [`BuildError::Json`] naming the offending argument by JSON Pointer.
    pub fn parse_arguments(&self, arguments: &str) -> Result<T, BuildError> {
        parse_arguments(arguments)
    }
}

impl<T> From<TypedTool<T>> for Tool {
    fn from(t: TypedTool<T>) -> Tool {
        t.tool
    }
}
