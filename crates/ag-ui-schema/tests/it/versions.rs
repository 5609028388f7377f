//! Each version's bundle has exactly the events and members that version knows, as the
//! event table and `VERSIONED_FIELDS` date them, and what core sends a peer of a version
//! is valid in that version's schema.

use ag_ui_core::{Event, EventType, ReadMode};
use ag_ui_fixtures::{CaseKind, Failures};
use serde_json::Value;

use crate::support::{ROOT, cases, is_event, schema_accepts_in};

#[test]
fn each_bundle_has_exactly_the_events_its_version_knows() {
    for version in ag_ui_schema::VERSIONS {
        let bundle = ag_ui_schema::bundle_for(version).unwrap();
        let known: Vec<EventType> = EventType::ALL
            .iter()
            .copied()
            .filter(|t| version.knows(*t))
            .collect();
        let values: Vec<&str> = bundle["$defs"]["EventType"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let wire: Vec<&str> = known.iter().map(|t| t.as_str()).collect();
        assert_eq!(values, wire, "EventType of the {version} bundle");
        let members: Vec<String> = bundle["$defs"]["Event"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["$ref"].as_str().unwrap().replace("#/$defs/", ""))
            .collect();
        let defs: Vec<&str> = known.iter().map(|t| t.definition()).collect();
        assert_eq!(members, defs, "Event of the {version} bundle");
        for t in version.unknown_events() {
            assert!(
                bundle["$defs"].get(t.definition()).is_none(),
                "the {version} bundle has {}, which the event table dates {}",
                t.definition(),
                t.since()
            );
        }
        let names: Vec<&str> = bundle["$defs"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(names, ag_ui_schema::definitions_for(version));
    }
}

/// Every valid event fixture, sent to a peer of each published version through
/// `ag_ui_core::version::downgrade_event`, is either withheld (its type is newer than the
/// peer) or valid in that version's schema. An event added to the table, or a member added
/// to `VERSIONED_FIELDS`, that the downgrade does not handle fails here, naming the case.
#[test]
fn what_core_sends_a_peer_is_valid_in_the_schema_of_its_version() {
    let mut f = Failures::new();
    let mut checked = 0_usize;
    for case in cases() {
        if !matches!(case.kind, CaseKind::Valid) || !is_event(&case.definition) {
            continue;
        }
        let event: Event = ag_ui_core::read::decode(&case.text, ReadMode::Exact)
            .unwrap()
            .value;
        for version in ag_ui_schema::VERSIONS {
            let (sent, warnings) = ag_ui_core::version::downgrade_event(event.clone(), version);
            let verdict = match sent {
                None if version.knows(event.event_type()) => {
                    Err("withheld although the version knows the event".to_owned())
                }
                None => Ok(()),
                Some(sent) => {
                    let doc: Value =
                        serde_json::from_str(&ag_ui_core::write::to_string(&sent).unwrap())
                            .unwrap();
                    checked += 1;
                    if schema_accepts_in(version, ROOT, &doc) {
                        Ok(())
                    } else {
                        Err(format!(
                            "sent as {doc} (left out: {warnings:?}), which the {version} schema \
                             rejects: a member it does not know is not removed (list it in \
                             VERSIONED_FIELDS, and for a definition nested in the event add the \
                             event to `impl Versioned for Event` in \
                             crates/ag-ui-core/src/model/version.rs)"
                        ))
                    }
                }
            };
            f.check(&format!("{} for {version}", case.name), verdict);
        }
    }
    assert!(checked > 100, "{checked} documents checked");
    f.finish("downgrade agreement");
}

/// A valid case named for a version after 1.0 (`v1.1-…`) holds something 1.0 does not have:
/// the 1.0 schema rejects it. A member a later version added that is missing from
/// `VERSIONED_FIELDS` (so 1.0 would have it too) fails here, naming the case.
#[test]
fn a_case_of_a_later_version_is_invalid_in_1_0() {
    use ag_ui_core::ProtocolVersion;
    let mut f = Failures::new();
    let mut checked = 0_usize;
    let in_1_0 = ag_ui_schema::definitions_for(ProtocolVersion::V1_0);
    for case in cases() {
        if !matches!(case.kind, CaseKind::Valid)
            || ag_ui_fixtures::protocol_of(&case.name) <= ProtocolVersion::V1_0
            || !in_1_0.contains(&case.definition.as_str())
        {
            continue;
        }
        checked += 1;
        f.check(
            &case.name,
            if schema_accepts_in(ProtocolVersion::V1_0, &case.definition, &case.input) {
                Err(format!(
                    "the 1.0 schema accepts it: list the member a later version added in \
                     VERSIONED_FIELDS (crates/ag-ui-core/src/model/version.rs), or name the \
                     case for 1.0 ({})",
                    case.input
                ))
            } else {
                Ok(())
            },
        );
    }
    assert!(checked >= 5, "{checked} cases of a later version");
    f.finish("later-version cases");
}
