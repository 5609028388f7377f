//! Tools and tool calls: short forms, an object-schema helper, and argument parsing that
//! names the offending argument.

use ag_ui_core::{Context, FunctionCall, Tool, ToolCall, ToolCallId};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::BuildError;

/// A tool `(name, description, parameters)`; `parameters` is the JSON Schema of the
/// arguments, usually from [`object_schema`] or [`ObjectSchema`].
#[must_use]
pub fn tool(
    name: impl Into<String>,
    description: impl Into<String>,
    parameters: impl Into<Value>,
) -> Tool {
    Tool::new(name, description).with_parameters(parameters)
}

/// A tool call `(id, name, arguments)`; its `type` is always `function`. `arguments` is the
/// JSON text, given as a string or as a `serde_json::Value` (written compactly).
#[must_use]
pub fn tool_call(
    id: impl Into<ToolCallId>,
    name: impl Into<String>,
    arguments: impl IntoArguments,
) -> ToolCall {
    ToolCall::new(id, function_call(name, arguments))
}

/// A function call `(name, arguments)`.
#[must_use]
pub fn function_call(name: impl Into<String>, arguments: impl IntoArguments) -> FunctionCall {
    FunctionCall::new(name, arguments.into_arguments())
}

/// A context entry `(description, value)`.
#[must_use]
pub fn context(description: impl Into<String>, value: impl Into<String>) -> Context {
    Context::new(description, value)
}

/// Tool-call arguments: JSON text, or a JSON value written as compact text.
pub trait IntoArguments {
    /// The JSON text.
    fn into_arguments(self) -> String;
}

impl IntoArguments for &str {
    fn into_arguments(self) -> String {
        self.to_owned()
    }
}

impl IntoArguments for String {
    fn into_arguments(self) -> String {
        self
    }
}

impl IntoArguments for &String {
    fn into_arguments(self) -> String {
        self.clone()
    }
}

impl IntoArguments for Value {
    fn into_arguments(self) -> String {
        self.to_string()
    }
}

impl IntoArguments for &Value {
    fn into_arguments(self) -> String {
        self.to_string()
    }
}

/// An object schema `{"type": "object", "properties": …, "required": […]}` from its
/// properties and the names of the required ones (`type: "object"` is implied).
///
/// ```
/// use ag_ui_builders::object_schema;
/// use serde_json::json;
///
/// let schema = object_schema([("city", json!({"type": "string"}))], ["city"])?;
/// assert_eq!(schema, json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}},
///     "required": ["city"]
/// }));
/// assert!(object_schema([("city", json!({"type": "string"}))], ["town"]).is_err());
/// # Ok::<(), ag_ui_builders::BuildError>(())
/// ```
///
/// # Errors
/// [`BuildError::UndeclaredRequired`] (at `/required/<i>`) when a required name is not a
/// property.
pub fn object_schema<K, R>(
    properties: impl IntoIterator<Item = (K, Value)>,
    required: impl IntoIterator<Item = R>,
) -> Result<Value, BuildError>
where
    K: Into<String>,
    R: Into<String>,
{
    let mut schema = ObjectSchema::new();
    for (name, prop) in properties {
        schema = schema.property(name, prop);
    }
    for name in required {
        schema.required.push(name.into());
    }
    schema.try_build()
}

/// An object schema built property by property (`type: "object"` implied).
///
/// ```
/// use ag_ui_builders::ObjectSchema;
/// use serde_json::json;
///
/// let schema = ObjectSchema::new()
///     .required_property("city", json!({"type": "string", "description": "City name"}))
///     .property("unit", json!({"enum": ["celsius", "fahrenheit"]}))
///     .build();
/// assert_eq!(schema["required"], json!(["city"]));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[must_use]
pub struct ObjectSchema {
    properties: Map<String, Value>,
    required: Vec<String>,
    extra: Map<String, Value>,
}

impl ObjectSchema {
    /// No properties yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares an optional property with its schema.
    pub fn property(mut self, name: impl Into<String>, schema: impl Into<Value>) -> Self {
        self.properties.insert(name.into(), schema.into());
        self
    }

    /// Declares a required property with its schema.
    pub fn required_property(self, name: impl Into<String>, schema: impl Into<Value>) -> Self {
        let name = name.into();
        let mut this = self.property(name.clone(), schema);
        if !this.required.contains(&name) {
            this.required.push(name);
        }
        this
    }

    /// Sets `description`.
    pub fn description(self, text: impl Into<String>) -> Self {
        self.keyword("description", Value::String(text.into()))
    }

    /// Sets `additionalProperties` (`false` closes the object).
    pub fn additional_properties(self, allowed: bool) -> Self {
        self.keyword("additionalProperties", Value::Bool(allowed))
    }

    /// Sets any other schema keyword.
    pub fn keyword(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }

    /// The schema; `required` is omitted when empty.
    #[must_use]
    pub fn build(self) -> Value {
        let mut out = Map::new();
        out.insert("type".into(), Value::String("object".into()));
        out.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            out.insert(
                "required".into(),
                Value::Array(self.required.into_iter().map(Value::String).collect()),
            );
        }
        out.extend(self.extra);
        Value::Object(out)
    }

    fn try_build(self) -> Result<Value, BuildError> {
        for (i, name) in self.required.iter().enumerate() {
            if !self.properties.contains_key(name) {
                return Err(BuildError::UndeclaredRequired {
                    pointer: format!("/required/{i}"),
                    name: name.clone(),
                });
            }
        }
        Ok(self.build())
    }
}

impl From<ObjectSchema> for Value {
    fn from(s: ObjectSchema) -> Value {
        s.build()
    }
}

/// Parses tool-call arguments (JSON text) into `T`, naming the offending argument by JSON
/// Pointer when they do not fit. Empty (or blank) arguments read as `{}`, which is how
/// several providers send a call without arguments.
///
/// ```
/// use ag_ui_builders::parse_arguments;
///
/// #[derive(Debug, serde::Deserialize)]
/// struct Args { city: String, days: u8 }
///
/// let args: Args = parse_arguments(r#"{"city":"Oslo","days":3}"#)?;
/// assert_eq!((args.city.as_str(), args.days), ("Oslo", 3));
///
/// let err = parse_arguments::<Args>(r#"{"city":"Oslo","days":"three"}"#).unwrap_err();
/// assert_eq!(err.pointer(), Some("/days"));
/// # Ok::<(), ag_ui_builders::BuildError>(())
/// ```
///
/// # Errors
/// [`BuildError::Json`] with the pointer of the offending member (for a missing field: of the
/// object lacking it, the message naming the field).
pub fn parse_arguments<T: DeserializeOwned>(arguments: &str) -> Result<T, BuildError> {
    let text = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize::<_, T>(&mut de).map_err(|e| {
        let pointer = to_pointer(e.path());
        BuildError::Json {
            pointer,
            message: e.into_inner().to_string(),
        }
    })?;
    de.end().map_err(|e| BuildError::json(&e))?;
    Ok(value)
}

/// The JSON Pointer of a serde path (stopping at the first segment it cannot name).
fn to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let tokens = path.iter().map_while(|seg| match seg {
        Segment::Seq { index } => Some(index.to_string()),
        Segment::Map { key } | Segment::Enum { variant: key } => Some(key.clone()),
        Segment::Unknown => None,
    });
    ag_ui_core::JsonPointer::from_tokens(tokens)
        .as_str()
        .to_owned()
}
