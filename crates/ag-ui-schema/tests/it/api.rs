//! The library API: the bundle, and one self-contained schema per definition or type.

use serde_json::json;

#[test]
fn definition_is_self_contained_and_validates_its_type() {
    let schema = ag_ui_schema::definition("RunAgentInput").unwrap().unwrap();
    assert_eq!(schema["$ref"], json!("#/$defs/RunAgentInput"));
    let v = jsonschema::validator_for(&schema).unwrap();
    assert!(v.is_valid(&json!({ "threadId": "t", "runId": "r", "messages": [] })));
    assert!(!v.is_valid(&json!({ "threadId": "t", "runId": "r" })));
    assert!(!v.is_valid(&json!({ "type": "RUN_STARTED", "threadId": "t", "runId": "r" })));
    assert_eq!(ag_ui_schema::definition("NoSuchThing").unwrap(), None);
}

#[test]
fn schema_for_a_type_is_its_definition() {
    assert_eq!(
        ag_ui_schema::schema_for::<ag_ui_core::TextMessageStartEvent>().unwrap(),
        ag_ui_schema::definition("TextMessageStartEvent").unwrap()
    );
    assert_eq!(
        ag_ui_schema::schema_for::<ag_ui_core::Event>().unwrap(),
        ag_ui_schema::definition("Event").unwrap()
    );
    // Ids other than SubagentRunId are inlined where used.
    assert_eq!(
        ag_ui_schema::schema_for::<ag_ui_core::ThreadId>().unwrap(),
        None
    );
    for name in ag_ui_schema::DEFINITIONS {
        let in_1_0 =
            ag_ui_schema::definitions_for(ag_ui_core::ProtocolVersion::V1_0).contains(&name);
        assert_eq!(
            ag_ui_schema::definition(name).unwrap().is_some(),
            in_1_0,
            "{name}"
        );
    }
}

#[test]
fn another_schema_references_a_definition_through_the_id() {
    // As docs/schema.md says: register the file under its `$id`, then reference
    // `<$id>#RunAgentInput` from another document.
    let bundle: serde_json::Value = serde_json::from_str(ag_ui_schema::SCHEMA_JSON).unwrap();
    let registry = jsonschema::Registry::new()
        .add(
            ag_ui_schema::SCHEMA_ID,
            jsonschema::Resource::from_contents(bundle),
        )
        .unwrap()
        .prepare()
        .unwrap();
    let contract = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "request": { "$ref": format!("{}#RunAgentInput", ag_ui_schema::SCHEMA_ID) }
        },
        "required": ["request"]
    });
    let v = jsonschema::options()
        .with_registry(&registry)
        .build(&contract)
        .unwrap();
    assert!(v.is_valid(&json!({ "request": { "threadId": "t", "runId": "r", "messages": [] } })));
    assert!(!v.is_valid(&json!({ "request": { "threadId": "t", "runId": "r" } })));
}
