#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

use std::fmt;

pub mod openapi;

use ag_ui_core as core;
use ag_ui_core::{EventType, ProtocolVersion};
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

/// The `$id` of the bundle: a URN, because the file has no canonical web address. A
/// validator that holds the file under this id resolves references to its definitions by
/// anchor (`urn:ag-ui-rs:schema:1.0#RunAgentInput`); within the file, `#RunAgentInput`
/// suffices.
pub const SCHEMA_ID: &str = "urn:ag-ui-rs:schema:1.0";

/// The protocol versions a bundle is published for, oldest first: one file each
/// ([`file_name_for`]), generated from the same types ([`bundle_for`]).
pub const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V1_1];

/// The `$id` of the bundle for `version`: [`SCHEMA_ID`] for 1.0, and the URN naming the
/// version for the others (`urn:ag-ui-rs:schema:1.1`).
#[must_use]
pub fn schema_id_for(version: ProtocolVersion) -> String {
    format!("urn:ag-ui-rs:schema:{version}")
}

/// The file name the bundle for `version` is published under: [`FILE_NAME`] for 1.0 (where
/// it has always been), `ag-ui-<version>.schema.json` for the others.
#[must_use]
pub fn file_name_for(version: ProtocolVersion) -> String {
    if version == ProtocolVersion::V1_0 {
        FILE_NAME.to_owned()
    } else {
        format!("ag-ui-{version}.schema.json")
    }
}

/// The published AG-UI 1.1 bundle, `schema/ag-ui-1.1.schema.json` of this crate, as text:
/// exactly what [`bundle_text_for`] returns for 1.1 (a test keeps them equal).
pub const SCHEMA_JSON_1_1: &str = include_str!("../schema/ag-ui-1.1.schema.json");

/// The published bundle, `schema/ag-ui.schema.json` of this crate, as text: exactly what
/// [`bundle_text`] returns (a test keeps them equal), without generating it.
///
/// ```
/// let schema: serde_json::Value = serde_json::from_str(ag_ui_schema::SCHEMA_JSON)?;
/// assert_eq!(schema["$id"], ag_ui_schema::SCHEMA_ID);
/// let v1_0 = ag_ui_schema::definitions_for(ag_ui_core::ProtocolVersion::V1_0);
/// assert_eq!(schema["$defs"].as_object().map(|d| d.len()), Some(v1_0.len()));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub const SCHEMA_JSON: &str = include_str!("../schema/ag-ui.schema.json");

/// The JSON Schema dialect of the bundle.
pub const META_SCHEMA: &str = "https://json-schema.org/draft/2020-12/schema";

/// The file name the bundle is published under.
pub const FILE_NAME: &str = "ag-ui.schema.json";

/// The definitions of the bundle (every wire definition and the three mixins, in
/// alphabetical order) and the mixins among them: core's lists, which the bundle follows.
pub use ag_ui_core::{DEFINITIONS, MIXINS};

/// Why the bundle could not be built: the Rust types and the conventions of the bundle
/// disagree (for instance two definitions composing one mixin describe a shared field
/// differently).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaError {
    /// What disagrees, and where (a definition name and a property, when there is one).
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SchemaError {}

fn err(message: impl Into<String>) -> SchemaError {
    SchemaError {
        message: message.into(),
    }
}

/// Builds the AG-UI 1.0 bundle: [`bundle_for`] 1.0.
///
/// # Errors
/// As [`bundle_for`].
pub fn bundle() -> Result<Value, SchemaError> {
    bundle_for(ProtocolVersion::V1_0)
}

/// Builds the bundle for `version`: the JSON Schema 2020-12 document whose root validates
/// an `Event` and whose `$defs` hold every definition ([`DEFINITIONS`]), each with a
/// `$anchor` of its own name. The members a version does not know
/// ([`ag_ui_core::VERSIONED_FIELDS`]) are left out of its bundle, so the 1.0 bundle closes
/// every object to exactly the 1.0 members.
///
/// # Errors
/// [`SchemaError`] when the derived schemas break a convention of the bundle, or `version` is
/// none of [`VERSIONS`]; the former is a bug in `ag-ui-core`'s schema attributes, never a
/// runtime condition.
pub fn bundle_for(version: ProtocolVersion) -> Result<Value, SchemaError> {
    if !VERSIONS.contains(&version) {
        return Err(err(format!(
            "no bundle is published for AG-UI {version} (the versions are {})",
            VERSIONS.map(|v| v.to_string()).join(", ")
        )));
    }
    let mut defs = derive_definitions();
    strip_unknown(&mut defs, version)?;
    strip_unknown_events(&mut defs, version)?;
    inline_unnamed(&mut defs)?;
    add_json_patch_and_state(&mut defs)?;
    extract_mixins(&mut defs, version)?;
    for (name, def) in &mut defs {
        clean_descriptions(def);
        if let Value::Object(obj) = def {
            obj.insert("$anchor".to_owned(), json!(name));
            obj.insert("title".to_owned(), json!(name));
        }
    }
    let names: Vec<&str> = defs.keys().map(String::as_str).collect();
    let expected = definitions_for(version);
    if names != expected {
        return Err(err(format!(
            "the definitions are not the {} of AG-UI {version} ({expected:?}): got {names:?}",
            expected.len()
        )));
    }
    Ok(json!({
        "$schema": META_SCHEMA,
        "$id": schema_id_for(version),
        "title": format!("AG-UI {version}"),
        "description": format!("The AG-UI (Agent-User Interaction protocol) {version} wire format, \
                        generated from the ag-ui-core Rust types. The root validates one event; \
                        every definition is addressable by its name as an anchor \
                        (`#RunAgentInput`). Objects are closed except the mixins, the open-by-key \
                        objects and the JSON Patch operations; optional fields are absent or \
                        typed, never `null` (`RunAgentInput.state` excepted). Ordering rules \
                        between events are not expressed here."),
        "$ref": "#/$defs/Event",
        "$defs": defs,
    }))
}

/// The definitions of the bundle for `version`, in alphabetical order: [`DEFINITIONS`]
/// without the events `version` does not know (the event table's first versions,
/// [`EventType::since`](ag_ui_core::EventType::since)).
///
/// ```
/// use ag_ui_core::ProtocolVersion;
///
/// assert_eq!(ag_ui_schema::definitions_for(ProtocolVersion::LATEST), ag_ui_schema::DEFINITIONS);
/// ```
#[must_use]
pub fn definitions_for(version: ProtocolVersion) -> Vec<&'static str> {
    DEFINITIONS
        .into_iter()
        .filter(|d| !version.unknown_events().any(|t| t.definition() == *d))
        .collect()
}

/// The 1.0 bundle as published: [`bundle_text_for`] 1.0.
///
/// # Errors
/// As [`bundle`].
pub fn bundle_text() -> Result<String, SchemaError> {
    bundle_text_for(ProtocolVersion::V1_0)
}

/// The bundle for `version` as published: pretty-printed JSON with a final newline.
///
/// # Errors
/// As [`bundle_for`].
pub fn bundle_text_for(version: ProtocolVersion) -> Result<String, SchemaError> {
    let mut text = serde_json::to_string_pretty(&bundle_for(version)?)
        .map_err(|e| err(format!("cannot print the bundle: {e}")))?;
    text.push('\n');
    Ok(text)
}

/// A self-contained schema for one definition: the 1.0 bundle's `$defs` with a root that
/// references `name`. `None` when `name` is not one of the definitions of 1.0
/// ([`definitions_for`]).
///
/// # Errors
/// As [`bundle`].
pub fn definition(name: &str) -> Result<Option<Value>, SchemaError> {
    if !definitions_for(ProtocolVersion::V1_0).contains(&name) {
        return Ok(None);
    }
    let mut doc = bundle()?;
    let Some(obj) = doc.as_object_mut() else {
        return Err(err("the bundle is not an object"));
    };
    obj.insert("$ref".to_owned(), json!(format!("#/$defs/{name}")));
    obj.insert("title".to_owned(), json!(name));
    obj.remove("description");
    if let Some(d) = obj
        .get("$defs")
        .and_then(|d| d.get(name))
        .and_then(|d| d.get("description"))
        .cloned()
    {
        obj.insert("description".to_owned(), d);
    }
    Ok(Some(doc))
}

/// [`definition`] for a Rust type of `ag-ui-core`, by its schema name
/// (`schema_for::<ag_ui_core::RunAgentInput>()`). `None` for a type that is no definition
/// of its own in the bundle (ids other than `SubagentRunId`, `Content`, …: they are
/// inlined where used).
///
/// # Errors
/// As [`bundle`].
pub fn schema_for<T: schemars::JsonSchema + ?Sized>() -> Result<Option<Value>, SchemaError> {
    definition(&T::schema_name())
}

// ---------------------------------------------------------------------------
// Derivation
// ---------------------------------------------------------------------------

fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12()
}

macro_rules! register {
    ($g:ident: $($t:ty),* $(,)?) => {
        $( let _ = $g.subschema_for::<$t>(); )*
    };
}

/// Every definition the derive produces for the wire types, by schemars name.
fn derive_definitions() -> Map<String, Value> {
    let mut g: SchemaGenerator = settings().into_generator();
    register!(g:
        core::Event, core::EventType, core::RunAgentInput, core::AgentCapabilities,
        core::Message, core::Role, core::TextMessageRole, core::ContentPart, core::PartSource,
        core::RunFinishedOutcome, core::SubagentFinishedOutcome, core::JsonPatchOperation,
        core::JsonPointer, core::Metadata, core::SubagentRunId,
        core::ReasoningEncryptedValueSubtype,
    );
    g.take_definitions(true)
}

/// Removes from `defs` the members `version` does not know, as
/// [`ag_ui_core::VERSIONED_FIELDS`] lists them; a listed member the derive did not produce
/// is an error (the table and the types disagree).
fn strip_unknown(
    defs: &mut Map<String, Value>,
    version: ProtocolVersion,
) -> Result<(), SchemaError> {
    for f in version.unknown_fields() {
        let removed = defs
            .get_mut(f.definition)
            .and_then(|d| d.get_mut("properties"))
            .and_then(Value::as_object_mut)
            .and_then(|p| p.remove(f.field));
        if removed.is_none() {
            return Err(err(format!(
                "{} has no `{}`, which VERSIONED_FIELDS lists for AG-UI {}",
                f.definition, f.field, f.since
            )));
        }
    }
    Ok(())
}

/// Removes from `defs` the events `version` does not know (the event table's first
/// versions): their definitions, their members of `Event` and their `EventType` values; the
/// `EventType` description counts the values left.
fn strip_unknown_events(
    defs: &mut Map<String, Value>,
    version: ProtocolVersion,
) -> Result<(), SchemaError> {
    for t in version.unknown_events() {
        let def = t.definition();
        if defs.remove(def).is_none() {
            return Err(err(format!(
                "the derive produced no definition {def} for {t}, which the event table has"
            )));
        }
        let target = json!(format!("#/$defs/{def}"));
        let members = defs
            .get_mut("Event")
            .and_then(|e| e.get_mut("oneOf"))
            .and_then(Value::as_array_mut)
            .ok_or_else(|| err("Event has no oneOf"))?;
        members.retain(|m| m.get("$ref") != Some(&target));
        let values = defs
            .get_mut("EventType")
            .and_then(|e| e.get_mut("enum"))
            .and_then(Value::as_array_mut)
            .ok_or_else(|| err("EventType has no enum"))?;
        values.retain(|v| v.as_str() != Some(t.as_str()));
    }
    let count = EventType::ALL.iter().filter(|t| version.knows(**t)).count();
    if let Some(obj) = defs.get_mut("EventType").and_then(Value::as_object_mut) {
        obj.insert(
            "description".to_owned(),
            json!(format!(
                "`EventType`: the {count} `type` values of AG-UI {version}, in the protocol's \
                 declaration order."
            )),
        );
    }
    Ok(())
}

/// Whether `version` knows the member `key` (it is none of its unknown fields).
fn knows(version: ProtocolVersion, key: &str) -> bool {
    !version.unknown_fields().any(|f| f.field == key)
}

/// Names the bundle keeps although no wire type is named so: `JsonPatch` (an alias of
/// `Vec<JsonPatchOperation>`) and `State` (an alias of any JSON value).
const ALIASES: [&str; 2] = ["JsonPatch", "State"];

/// Replaces every reference to a definition that is not one of [`DEFINITIONS`] (the id newtypes,
/// `Content`, `ResumeStatus`, the one-value role enums, `NonEmpty`) by its schema, keeping
/// the referring schema's own description.
fn inline_unnamed(defs: &mut Map<String, Value>) -> Result<(), SchemaError> {
    let keep = |n: &str| DEFINITIONS.contains(&n) && !MIXINS.contains(&n) && !ALIASES.contains(&n);
    let unnamed: Map<String, Value> = defs
        .iter()
        .filter(|(n, _)| !keep(n))
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect();
    defs.retain(|n, _| keep(n));
    for _ in 0..8 {
        let mut changed = false;
        for def in defs.values_mut() {
            changed |= inline_refs(def, &unnamed);
        }
        if !changed {
            return Ok(());
        }
    }
    Err(err(
        "inlining did not converge (a recursive type outside the definitions?)",
    ))
}

fn inline_refs(v: &mut Value, unnamed: &Map<String, Value>) -> bool {
    let mut changed = false;
    match v {
        Value::Object(obj) => {
            let target = obj
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|n| unnamed.get(n));
            if let Some(Value::Object(inner)) = target {
                obj.remove("$ref");
                for (k, val) in inner {
                    if k != "title" {
                        obj.entry(k.clone()).or_insert_with(|| val.clone());
                    }
                }
                changed = true;
            }
            for child in obj.values_mut() {
                changed |= inline_refs(child, unnamed);
            }
        }
        Value::Array(items) => {
            for child in items {
                changed |= inline_refs(child, unnamed);
            }
        }
        _ => {}
    }
    changed
}

/// Adds `JsonPatch` and `State`, and lets every array of patch operations reference
/// `JsonPatch`.
fn add_json_patch_and_state(defs: &mut Map<String, Value>) -> Result<(), SchemaError> {
    let patch_array = json!({ "type": "array", "items": { "$ref": "#/$defs/JsonPatchOperation" } });
    fn use_patch_ref(v: &mut Value, patch_array: &Value) {
        match v {
            Value::Object(obj) => {
                let is_patch = obj.get("type") == patch_array.get("type")
                    && obj.get("items") == patch_array.get("items")
                    && obj
                        .keys()
                        .all(|k| matches!(k.as_str(), "type" | "items" | "description"));
                if is_patch {
                    obj.remove("type");
                    obj.remove("items");
                    obj.insert("$ref".to_owned(), json!("#/$defs/JsonPatch"));
                }
                for child in obj.values_mut() {
                    use_patch_ref(child, patch_array);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|c| use_patch_ref(c, patch_array)),
            _ => {}
        }
    }
    for def in defs.values_mut() {
        use_patch_ref(def, &patch_array);
    }
    let mut patch = patch_array;
    patch["description"] = json!(
        "`JsonPatch`: an RFC 6902 patch, an array of operations applied in order and \
         atomically (an empty array is a valid no-op)."
    );
    defs.insert("JsonPatch".to_owned(), patch);
    defs.insert(
        "State".to_owned(),
        json!({
            "description": "`State`: the agent state, any JSON value (`null` included). The \
                            protocol never interprets it."
        }),
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// Mixins
// ---------------------------------------------------------------------------

/// A mixin: the shared properties, which of them are required, and the definitions that
/// compose it.
/// A union tag of a mixin: its key, the `$ref` of its enumeration and its description
/// (computed, so that it can state a count the tables hold).
type Tag = (&'static str, &'static str, fn(ProtocolVersion) -> String);

struct Mixin {
    name: &'static str,
    description: &'static str,
    /// Properties taken from the composing definitions (they must agree exactly).
    shared: &'static [&'static str],
    /// The union tag, typed by the enumeration of its values.
    tag: Option<Tag>,
    required: &'static [&'static str],
}

const BASE_EVENT: Mixin = Mixin {
    name: "BaseEvent",
    description: "`BaseEvent`: the fields every event carries. Open: each event composes it \
                  with `allOf`, narrows `type` to its own constant and closes the whole shape.",
    shared: &["timestamp", "rawEvent", "metadata"],
    tag: Some(("type", "#/$defs/EventType", |version| {
        format!(
            "The event type, one of the {} of AG-UI {version}; each event narrows it to its own \
             constant.",
            EventType::ALL.iter().filter(|t| version.knows(**t)).count()
        )
    })),
    required: &["type"],
};

const ATTRIBUTABLE: Mixin = Mixin {
    name: "Attributable",
    description: "`Attributable`: the optional `subagentRunId` attribution (spec §2.8), \
                  composed into the attributable events, every message and `Interrupt`. Open.",
    shared: &["subagentRunId"],
    tag: None,
    required: &[],
};

const BASE_MESSAGE: Mixin = Mixin {
    name: "BaseMessage",
    description: "`BaseMessage`: the fields shared by developer, system, assistant and user \
                  messages. Open: each of them composes it with `allOf`, narrows `role` to its \
                  own constant and closes the whole shape.",
    shared: &[
        "id",
        "name",
        "encryptedValue",
        "encryptedValueType",
        "metadata",
    ],
    tag: Some(("role", "#/$defs/Role", |_| {
        "The message role; each message narrows it to its own constant.".to_owned()
    })),
    required: &["id", "role"],
};

/// Members of a union definition, by the names their `$ref`s point to.
fn union_members(defs: &Map<String, Value>, union: &str) -> Result<Vec<String>, SchemaError> {
    defs.get(union)
        .and_then(|u| u.get("oneOf"))
        .and_then(Value::as_array)
        .ok_or_else(|| err(format!("{union} is not a oneOf union")))?
        .iter()
        .map(|b| {
            b.get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .map(str::to_owned)
                .ok_or_else(|| err(format!("a member of {union} is not a reference")))
        })
        .collect()
}

fn props(def: &Value) -> Option<&Map<String, Value>> {
    def.get("properties").and_then(Value::as_object)
}

fn is_required(def: &Value, key: &str) -> bool {
    def.get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|k| k == key))
}

/// Moves the shared fields of each mixin out of the definitions composing it, checking
/// that they describe them identically.
fn extract_mixins(
    defs: &mut Map<String, Value>,
    version: ProtocolVersion,
) -> Result<(), SchemaError> {
    let events = union_members(defs, "Event")?;
    let attributable: Vec<String> = defs
        .iter()
        .filter(|(_, d)| {
            props(d).is_some_and(|p| p.contains_key("subagentRunId"))
                && !is_required(d, "subagentRunId")
        })
        .map(|(n, _)| n.clone())
        .collect();
    let base_messages: Vec<String> = union_members(defs, "Message")?
        .into_iter()
        .filter(|m| {
            defs.get(m).and_then(props).is_some_and(|p| {
                BASE_MESSAGE
                    .shared
                    .iter()
                    .filter(|k| knows(version, k))
                    .all(|k| p.contains_key(*k))
            })
        })
        .collect();
    for (mixin, members) in [
        (&BASE_EVENT, &events),
        (&ATTRIBUTABLE, &attributable),
        (&BASE_MESSAGE, &base_messages),
    ] {
        compose(defs, mixin, members, version)?;
    }
    Ok(())
}

fn compose(
    defs: &mut Map<String, Value>,
    mixin: &Mixin,
    members: &[String],
    version: ProtocolVersion,
) -> Result<(), SchemaError> {
    let keys: Vec<&str> = mixin
        .shared
        .iter()
        .copied()
        .filter(|k| knows(version, k))
        .collect();
    let first = members
        .first()
        .ok_or_else(|| err(format!("nothing composes {}", mixin.name)))?;
    let mut shared = Map::new();
    if let Some((key, enum_ref, description)) = mixin.tag {
        shared.insert(
            key.to_owned(),
            json!({ "$ref": enum_ref, "description": description(version) }),
        );
    }
    for key in &keys {
        let schema = defs
            .get(first)
            .and_then(props)
            .and_then(|p| p.get(*key))
            .ok_or_else(|| err(format!("{first} lacks `{key}` of {}", mixin.name)))?;
        shared.insert((*key).to_owned(), schema.clone());
    }
    for member in members {
        let def = defs
            .get_mut(member)
            .and_then(Value::as_object_mut)
            .ok_or_else(|| err(format!("{member} is not an object schema")))?;
        let Some(Value::Object(p)) = def.get_mut("properties") else {
            return Err(err(format!("{member} has no properties")));
        };
        for key in &keys {
            let own = p.remove(*key);
            if own.as_ref() != shared.get(*key) {
                return Err(err(format!(
                    "{member}.{key} differs from {}.{key} as {first} declares it: {own:?} vs {:?}",
                    mixin.name,
                    shared.get(*key)
                )));
            }
        }
        if let Some(Value::Array(req)) = def.get_mut("required") {
            req.retain(|k| {
                !(mixin.shared.iter().any(|s| k == s) && mixin.required.iter().any(|r| k == r))
            });
        }
        let all_of = def
            .entry("allOf")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(all_of) = all_of {
            all_of.push(json!({ "$ref": format!("#/$defs/{}", mixin.name) }));
        }
    }
    defs.insert(
        mixin.name.to_owned(),
        json!({
            "description": mixin.description,
            "type": "object",
            "properties": shared,
            "required": mixin.required,
        }),
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// Descriptions
// ---------------------------------------------------------------------------

/// Turns rustdoc prose into plain descriptions: wrapped lines joined, intra-doc links
/// reduced to their code span, Rust-only pointers (`see [`Self::role`]`) dropped.
fn clean_descriptions(v: &mut Value) {
    match v {
        Value::Object(obj) => {
            for (k, child) in obj.iter_mut() {
                if k == "description"
                    && let Value::String(s) = child
                {
                    *s = clean(s);
                } else if k != "const" && k != "enum" && k != "default" {
                    clean_descriptions(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean_descriptions),
        _ => {}
    }
}

fn clean(text: &str) -> String {
    let paragraphs: Vec<String> = text
        .split("\n\n")
        .map(|p| p.lines().map(str::trim).collect::<Vec<_>>().join(" "))
        .collect();
    let mut s = paragraphs.join("\n\n");
    // Rust-only references: ` (see [`Self::x`])` goes entirely.
    while let Some(start) = s.find(" (see [`Self::") {
        match s[start..].find("`])") {
            Some(end) => s.replace_range(start..start + end + 3, ""),
            None => break,
        }
    }
    s.replace("[`", "`").replace("`]", "`")
}
