//! The bundle as a document: dialect, definitions, references, conventions of spec §8.5.

use std::collections::BTreeSet;

use ag_ui_core::{
    ContentPart, EventType, JsonPatchOperation, MAX_SAFE_INTEGER, Message, PartSource,
    ProtocolVersion, RunFinishedOutcome, SubagentFinishedOutcome,
};
use serde_json::{Value, json};

use crate::support::{bundle, defs, members, union_tags, validator};

/// Calls `f` on every schema object of `v` with its location (`properties` and `$defs`
/// maps are containers, not schemas).
fn walk<'a>(v: &'a Value, at: &str, f: &mut dyn FnMut(&str, &'a serde_json::Map<String, Value>)) {
    match v {
        Value::Object(obj) => {
            f(at, obj);
            for (k, child) in obj {
                if matches!(k.as_str(), "properties" | "$defs") {
                    for (name, s) in child.as_object().unwrap() {
                        walk(s, &format!("{at}/{k}/{name}"), f);
                    }
                } else if matches!(k.as_str(), "const" | "enum" | "default") {
                } else {
                    walk(child, &format!("{at}/{k}"), f);
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                walk(child, &format!("{at}/{i}"), f);
            }
        }
        _ => {}
    }
}

#[test]
fn is_a_valid_draft_2020_12_schema_with_our_own_id() {
    let b = bundle();
    if let Err(e) = jsonschema::draft202012::meta::validate(b) {
        panic!(
            "the bundle breaks the 2020-12 meta-schema: {e} at {}",
            e.instance_path()
        );
    }
    assert_eq!(
        b["$schema"],
        json!("https://json-schema.org/draft/2020-12/schema")
    );
    assert_eq!(b["$id"], json!(ag_ui_schema::SCHEMA_ID));
    // The id claims no web address: a URN, not a URL of a host this project does not own.
    assert!(ag_ui_schema::SCHEMA_ID.starts_with("urn:"));
    assert!(!ag_ui_schema::SCHEMA_ID.contains('/'));
    assert_eq!(
        b["$ref"],
        json!("#/$defs/Event"),
        "the root validates an Event"
    );
}

#[test]
fn holds_every_definition_each_anchored_by_its_name() {
    let names: Vec<&str> = defs().keys().map(String::as_str).collect();
    assert_eq!(names, ag_ui_schema::definitions_for(ProtocolVersion::V1_0));
    let mut expected: BTreeSet<&str> = ag_ui_fixtures::STANDALONE_DEFINITIONS
        .iter()
        .copied()
        .collect();
    expected.extend(ag_ui_fixtures::MIXINS);
    for t in ProtocolVersion::V1_0.unknown_events() {
        expected.remove(t.definition());
    }
    assert_eq!(names.iter().copied().collect::<BTreeSet<_>>(), expected);
    for (name, def) in defs() {
        assert_eq!(def["$anchor"], json!(name), "$anchor of {name}");
        assert!(
            def["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name} has no description"
        );
    }
}

#[test]
fn every_reference_and_anchor_resolves() {
    let mut refs = 0;
    walk(bundle(), "", &mut |at, obj| {
        if let Some(r) = obj.get("$ref") {
            let r = r.as_str().unwrap();
            let target = r
                .strip_prefix('#')
                .and_then(|p| bundle().pointer(p))
                .unwrap_or_else(|| panic!("{at}: $ref {r} does not resolve"));
            assert!(target.is_object(), "{at}: $ref {r} is no schema");
            refs += 1;
        }
    });
    assert!(refs > 100, "only {refs} references found");
    // Addressing each definition by its anchor compiles (and so resolves).
    for name in ag_ui_schema::definitions_for(ProtocolVersion::V1_0) {
        let _ = validator(name);
    }
}

#[test]
fn event_union_event_type_enum_and_event_definitions_agree() {
    let union = members("Event");
    let enum_values: Vec<&str> = defs()["EventType"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(enum_values, wire_names_1_0(), "EventType enum");
    assert_eq!(union.len(), wire_names_1_0().len());
    let union_tags: Vec<&str> = union
        .iter()
        .map(|m| defs()[m]["properties"]["type"]["const"].as_str().unwrap())
        .collect();
    assert_eq!(union_tags, wire_names_1_0(), "Event members, in order");
    let event_defs: BTreeSet<&String> = defs()
        .iter()
        .filter(|(n, d)| {
            d["allOf"]
                .as_array()
                .is_some_and(|a| a.contains(&json!({ "$ref": "#/$defs/BaseEvent" })))
                || (n.ends_with("Event") && !matches!(n.as_str(), "BaseEvent" | "Event"))
        })
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        event_defs,
        union.iter().collect(),
        "event definitions vs the union"
    );
    for m in &union {
        let attributable = defs()[m]["allOf"]
            .as_array()
            .unwrap()
            .contains(&json!({ "$ref": "#/$defs/Attributable" }));
        let t = EventType::from_wire(defs()[m]["properties"]["type"]["const"].as_str().unwrap())
            .unwrap();
        assert_eq!(
            attributable,
            t.is_attributable(),
            "{m} composes Attributable"
        );
    }
}

#[test]
fn every_union_lists_its_members_by_distinct_tags() {
    let events = wire_names_1_0();
    let expected: [(&str, &str, &[&str]); 7] = [
        ("Event", "type", &events),
        ("Message", "role", Message::TAGS),
        ("ContentPart", "type", ContentPart::TAGS),
        ("PartSource", "type", PartSource::TAGS),
        ("RunFinishedOutcome", "type", RunFinishedOutcome::TAGS),
        (
            "SubagentFinishedOutcome",
            "type",
            SubagentFinishedOutcome::TAGS,
        ),
        ("JsonPatchOperation", "op", JsonPatchOperation::TAGS),
    ];
    assert_eq!(union_tags().len(), expected.len(), "{:?}", union_tags());
    for (union, tag, tags) in expected {
        assert_eq!(union_tags()[union], tag);
        let got: Vec<&str> = members(union)
            .iter()
            .map(|m| defs()[m]["properties"][tag]["const"].as_str().unwrap())
            .collect();
        assert_eq!(got, tags, "tags of {union}");
    }
    let roles: Vec<&str> = defs()["Role"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(roles, Message::TAGS, "Role enum vs Message members");
}

#[test]
fn uses_only_the_keyword_vocabulary_of_spec_8_5() {
    const VOCABULARY: [&str; 23] = [
        "$schema",
        "$id",
        "$defs",
        "$anchor",
        "$ref",
        "title",
        "description",
        "type",
        "properties",
        "required",
        "const",
        "enum",
        "items",
        "allOf",
        "oneOf",
        "minimum",
        "maximum",
        "minItems",
        "pattern",
        "default",
        "contentEncoding",
        "additionalProperties",
        "unevaluatedProperties",
    ];
    let mut seen = BTreeSet::new();
    walk(bundle(), "", &mut |at, obj| {
        for k in obj.keys() {
            assert!(
                VOCABULARY.contains(&k.as_str()),
                "{at}: keyword {k} is outside the vocabulary"
            );
            seen.insert(k.clone());
        }
    });
    assert_eq!(
        seen.len(),
        VOCABULARY.len(),
        "every keyword of the vocabulary is used: {seen:?}"
    );
}

#[test]
fn every_property_carries_a_description() {
    let mut count = 0;
    for (name, def) in defs() {
        let Some(props) = def.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (p, s) in props {
            count += 1;
            let d = s["description"].as_str().unwrap_or_default();
            assert!(!d.is_empty(), "{name}.{p} has no description");
            assert!(
                !d.contains("Self::") && !d.contains("[`"),
                "{name}.{p}: rustdoc syntax in {d:?}"
            );
        }
    }
    assert!(count > 250, "only {count} properties");
}

#[test]
fn objects_are_closed_except_mixins_open_maps_and_patch_operations() {
    let open: BTreeSet<&str> = [
        "BaseEvent",
        "Attributable",
        "BaseMessage",
        "AddOperation",
        "RemoveOperation",
        "ReplaceOperation",
        "MoveOperation",
        "CopyOperation",
        "TestOperation",
    ]
    .into();
    for (name, def) in defs() {
        if def.get("properties").is_none() {
            continue;
        }
        let closed = def.get("unevaluatedProperties") == Some(&json!(false));
        assert_eq!(closed, !open.contains(name.as_str()), "{name} closed?");
        assert!(def.get("additionalProperties").is_none(), "{name}");
    }
    let open_by_key = json!({ "type": "object", "additionalProperties": true });
    let strip = |v: &Value| {
        let mut v = v.clone();
        for k in ["description", "$anchor", "title"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(strip(&defs()["Metadata"]), open_by_key);
    for (def, prop) in [
        ("ActivityMessage", "content"),
        ("ActivitySnapshotEvent", "content"),
        ("Interrupt", "responseSchema"),
        ("AgentCapabilities", "custom"),
    ] {
        assert_eq!(
            strip(&defs()[def]["properties"][prop]),
            open_by_key,
            "{def}.{prop}"
        );
    }
}

#[test]
fn annotations_bounds_and_patterns_follow_the_spec() {
    let d = defs();
    let max = json!(MAX_SAFE_INTEGER);
    assert_eq!(
        d["BaseEvent"]["properties"]["timestamp"]["minimum"],
        json!(-MAX_SAFE_INTEGER)
    );
    assert_eq!(d["BaseEvent"]["properties"]["timestamp"]["maximum"], max);
    for count in [
        "inputTokens",
        "outputTokens",
        "totalTokens",
        "reasoningTokens",
        "cachedInputTokens",
        "cacheWriteInputTokens",
    ] {
        let p = &d["TokenUsage"]["properties"][count];
        assert_eq!(
            (&p["type"], &p["minimum"], &p["maximum"]),
            (&json!("integer"), &json!(0), &max)
        );
    }
    for limit in ["maxIterations", "maxExecutionTime"] {
        let p = &d["ExecutionCapabilities"]["properties"][limit];
        assert_eq!((&p["minimum"], &p["maximum"]), (&json!(0), &max));
    }
    assert_eq!(
        d["RunFinishedInterruptOutcome"]["properties"]["interrupts"]["minItems"],
        json!(1)
    );
    assert_eq!(d["JsonPointer"]["pattern"], json!("^(/([^/~]|~[01])*)*$"));
    assert_eq!(
        d["TextMessageStartEvent"]["properties"]["role"]["default"],
        json!("assistant")
    );
    assert_eq!(
        d["TextMessageChunkEvent"]["properties"]["role"]["default"],
        json!("assistant")
    );
    assert_eq!(
        d["ActivitySnapshotEvent"]["properties"]["replace"]["default"],
        json!(true)
    );
    assert_eq!(
        d["DataSource"]["properties"]["value"]["contentEncoding"],
        json!("base64")
    );
    assert_eq!(
        d["ToolCall"]["properties"]["type"]["const"],
        json!("function")
    );
    assert_eq!(
        d["ReasoningMessageStartEvent"]["properties"]["role"]["const"],
        json!("reasoning")
    );
    assert_eq!(
        d["ToolCallResultEvent"]["properties"]["role"]["const"],
        json!("tool")
    );
}

#[test]
fn optional_fields_are_absent_or_typed_never_null() {
    // Each optional property's own schema, compiled against the bundle, refuses `null`;
    // `RunAgentInput.state` is the one optional field a `null` is allowed in.
    let mut checked = 0;
    for (name, def) in defs() {
        let Some(props) = def.get("properties").and_then(Value::as_object) else {
            continue;
        };
        let required: BTreeSet<&str> = def["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for p in props.keys().filter(|p| !required.contains(p.as_str())) {
            let mut doc = bundle().clone();
            doc["$ref"] = json!(format!("#/$defs/{name}/properties/{p}"));
            let v = jsonschema::options().build(&doc).unwrap();
            let allows_null = v.is_valid(&Value::Null);
            assert_eq!(
                allows_null,
                (name.as_str(), p.as_str()) == ("RunAgentInput", "state"),
                "{name}.{p} and null"
            );
            checked += 1;
        }
    }
    assert!(checked > 140, "only {checked} optional properties");
}

/// The wire names of the events AG-UI 1.0 has (the event table's first versions), in table
/// order: what the 1.0 bundle lists.
fn wire_names_1_0() -> Vec<&'static str> {
    EventType::ALL
        .iter()
        .filter(|t| ProtocolVersion::V1_0.knows(**t))
        .map(|t| t.as_str())
        .collect()
}
