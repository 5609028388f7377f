//! [`clean_schema`]: a JSON Schema without what LLM tool schemas do not want.

use serde_json::{Map, Value};

/// The `format` values that describe a number's machine representation (what `schemars`
/// writes for Rust integer and float types), not its meaning.
const NUMERIC_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int128", "int", "uint8", "uint16", "uint32", "uint64",
    "uint128", "uint", "float", "double",
];

/// Keywords whose value is a schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalItems",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];

/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Keywords whose value maps names to schemas.
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// `schema` without the keywords that are noise in an LLM tool's parameters: every
/// `title`, and every `format` that names a number's machine type (`uint32`, `int64`,
/// `double`, …, as `schemars` writes them; `format`s of strings such as `date-time` stay).
/// Only schema positions are cleaned: a property *named* `title` or `format` is kept.
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "title": "Args",
///     "type": "object",
///     "properties": {
///         "title": {"type": "string", "title": "Title"},
///         "days": {"type": "integer", "format": "uint32", "minimum": 0},
///         "when": {"type": "string", "format": "date-time"}
///     }
/// });
/// assert_eq!(ag_ui_builders::clean_schema(schema), json!({
///     "type": "object",
///     "properties": {
///         "title": {"type": "string"},
///         "days": {"type": "integer", "minimum": 0},
///         "when": {"type": "string", "format": "date-time"}
///     }
/// }));
/// ```
#[must_use]
pub fn clean_schema(mut schema: Value) -> Value {
    clean(&mut schema);
    schema
}

fn clean(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    map.remove("title");
    if map
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| NUMERIC_FORMATS.contains(&f))
    {
        map.remove("format");
    }
    for key in SCHEMA_KEYWORDS {
        if let Some(sub) = map.get_mut(*key) {
            clean(sub);
        }
    }
    for key in SCHEMA_ARRAY_KEYWORDS {
        if let Some(Value::Array(subs)) = map.get_mut(*key) {
            subs.iter_mut().for_each(clean);
        }
    }
    for key in SCHEMA_MAP_KEYWORDS {
        if let Some(Value::Object(subs)) = map.get_mut(*key) {
            subs.values_mut().for_each(clean);
        }
    }
    clean_dependencies(map);
}

/// Draft-7 `dependencies`: each value is a schema or an array of property names.
fn clean_dependencies(map: &mut Map<String, Value>) {
    if let Some(Value::Object(deps)) = map.get_mut("dependencies") {
        deps.values_mut().filter(|d| d.is_object()).for_each(clean);
    }
}
