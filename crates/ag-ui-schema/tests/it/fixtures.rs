//! The fixture corpus against the schema: valid documents validate, invalid ones fail where
//! their `.expect.json` says, event definitions do not accept one another's documents.

use ag_ui_core::ProtocolVersion;
use ag_ui_fixtures::{CaseKind, Expect, Failures};
use serde_json::Value;

use crate::support::{
    Leaf, ROOT, cases, is_event, leaves_in, members, schema_accepts_in, union_tags, unions_of,
    versions_of,
};

/// Where a JSON Schema validator reports what `expect` describes. The corpus names the tag
/// member for an unknown tag (rules `tag`, `event-type`, `legacy-event`); JSON Schema
/// reports the `oneOf` of the union at the object holding it (fixtures/README.md). A 0.x
/// binary part (`legacy-binary`) is named by the part itself, where the `oneOf` fails.
fn expected_leaf(expect: &Expect) -> Leaf {
    let keyword = expect.keyword.clone().unwrap_or_default();
    let pointer = match (keyword.as_str(), expect.rule.as_str()) {
        ("oneOf", "tag" | "event-type" | "legacy-event") => match expect.pointer.rfind('/') {
            Some(i) => expect.pointer[..i].to_owned(),
            None => panic!("{expect:?}: a tag pointer names a member"),
        },
        ("oneOf", "legacy-binary") => expect.pointer.clone(),
        ("oneOf", other) => panic!("no documented mapping of rule {other} to oneOf"),
        _ => expect.pointer.clone(),
    };
    Leaf {
        keyword,
        pointer,
        property: expect.property.clone(),
    }
}

/// The definitions a document filed under `def` is checked against: its own, each union
/// containing it, and the root for events.
fn targets(def: &str) -> Vec<String> {
    let mut out = vec![def.to_owned()];
    out.extend(unions_of(def));
    if is_event(def) {
        out.push(ROOT.to_owned());
    }
    out
}

/// A member's own tag with another value (`const` at `/type`) is, read through a union
/// containing the member, an unknown tag: the union reports its `oneOf` at the object.
fn as_union_reports(target: &str, def: &str, want: Leaf) -> Leaf {
    if target == def || want.keyword != "const" {
        return want;
    }
    let union = if target.is_empty() { "Event" } else { target };
    let tag = &union_tags()[union];
    if want.pointer == format!("/{tag}") {
        Leaf {
            keyword: "oneOf".into(),
            pointer: String::new(),
            property: None,
        }
    } else {
        want
    }
}

/// Each bundle a case is checked in ([`versions_of`]), with each target in it.
fn versions_and_targets(case: &ag_ui_fixtures::Case) -> Vec<(ProtocolVersion, String)> {
    versions_of(case)
        .into_iter()
        .flat_map(|v| targets(&case.definition).into_iter().map(move |t| (v, t)))
        .collect()
}

fn label(target: &str) -> &str {
    if target.is_empty() {
        "the root"
    } else {
        target
    }
}

#[test]
fn every_valid_fixture_validates_against_its_definition_its_unions_and_the_root() {
    let mut f = Failures::new();
    for case in cases() {
        if !matches!(case.kind, CaseKind::Valid) {
            continue;
        }
        for (v, t) in versions_and_targets(case) {
            let l = leaves_in(v, &t, &case.input);
            f.check(
                &format!("{} as {} ({v})", case.name, label(&t)),
                if l.is_empty() {
                    Ok(())
                } else {
                    Err(format!("rejected: {}", list(&l)))
                },
            );
        }
    }
    assert!(f.checked > 250, "only {} checks", f.checked);
    f.finish("valid-fixture");
}

#[test]
fn every_invalid_fixture_fails_at_the_keyword_and_location_it_names() {
    let mut f = Failures::new();
    for case in cases() {
        let CaseKind::Invalid { expect } = &case.kind else {
            continue;
        };
        for (v, t) in versions_and_targets(case) {
            let want = as_union_reports(&t, &case.definition, expected_leaf(expect));
            let got = leaves_in(v, &t, &case.input);
            f.check(
                &format!("{} as {} ({v})", case.name, label(&t)),
                if got.contains(&want) {
                    Ok(())
                } else if got.is_empty() {
                    Err(format!("accepted; expected {want}"))
                } else {
                    Err(format!("expected {want}; got {}", list(&got)))
                },
            );
        }
    }
    assert!(f.checked > 100, "only {} checks", f.checked);
    f.finish("invalid-fixture");
}

#[test]
fn normalized_and_expected_documents_validate() {
    // What the forgiving reader yields and what the producer must write are 1.0 documents.
    let mut f = Failures::new();
    for case in cases() {
        let doc: &Value = match &case.kind {
            // A stream reader drops an event of unknown type: nothing to validate.
            CaseKind::Forgiving { output, .. } if output.is_null() => continue,
            CaseKind::Forgiving { output, .. } => output,
            CaseKind::RoundTrip { expected } => expected,
            _ => continue,
        };
        let def = if case.definition == "Event" {
            ROOT
        } else {
            &case.definition
        };
        for v in versions_of(case) {
            let l = leaves_in(v, def, doc);
            f.check(
                &format!("{} ({v})", case.name),
                if l.is_empty() { Ok(()) } else { Err(list(&l)) },
            );
        }
    }
    assert!(f.checked > 20, "only {} checks", f.checked);
    f.finish("normalized-output");
}

#[test]
fn each_event_definition_rejects_every_other_events_valid_documents() {
    let events = members("Event");
    let mut f = Failures::new();
    for case in cases() {
        if !matches!(case.kind, CaseKind::Valid) || !is_event(&case.definition) {
            continue;
        }
        for v in versions_of(case) {
            for other in events.iter().filter(|e| **e != case.definition) {
                f.check(
                    &format!("{} as {other} ({v})", case.name),
                    if schema_accepts_in(v, other, &case.input) {
                        Err("accepted".into())
                    } else {
                        Ok(())
                    },
                );
            }
        }
    }
    let events = ag_ui_core::EventType::ALL.len();
    assert!(f.checked > events * 30, "only {} checks", f.checked);
    f.finish("cross-event");
}

fn list(leaves: &[Leaf]) -> String {
    leaves
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
