//! The event table and the definitions table agree with everything derived from them.

use std::collections::BTreeSet;

use ag_ui_core::{DEFINITIONS, Event, EventType, MIXINS, ReadMode, SubagentRunId};
use ag_ui_fixtures::{CaseKind, load_cases};

/// One row of the event table, as the callback sees it.
#[derive(Debug)]
struct Row {
    wire: &'static str,
    variant: &'static str,
    ty: &'static str,
    area: &'static str,
    attribution: &'static str,
    boxing: &'static str,
    naming: &'static str,
    since: ag_ui_core::ProtocolVersion,
    size: usize,
}

macro_rules! rows {
    ([] $($variant:ident($ty:ident) = $wire:literal in $area:ident since $since:ident [$attr:ident, $boxing:ident, $naming:ident],)*) => {
        vec![$(Row {
            wire: $wire,
            variant: stringify!($variant),
            ty: stringify!($ty),
            area: stringify!($area),
            attribution: stringify!($attr),
            boxing: stringify!($boxing),
            naming: stringify!($naming),
            since: ag_ui_core::ProtocolVersion::$since,
            size: std::mem::size_of::<ag_ui_core::$ty>(),
        }),*]
    };
}

fn table() -> Vec<Row> {
    ag_ui_core::for_each_event!(rows)
}

/// The one deliberate literal pin of the tables' sizes: AG-UI 1.0 has 31 event types and
/// 98 schema definitions, 3 of them mixins. A published version does not change, so the
/// pin counts what 1.0 has (the events the table dates 1.0 or earlier); everything else in
/// the workspace (messages, docs, other tests) derives its numbers from the tables, so a
/// table that loses or misdates a 1.0 event fails here, once, and nowhere by a forgotten
/// count.
#[test]
fn the_tables_have_the_sizes_of_ag_ui_1_0() {
    use ag_ui_core::ProtocolVersion;
    let events = EventType::ALL
        .iter()
        .filter(|t| ProtocolVersion::V1_0.knows(**t))
        .count();
    let newer = EventType::ALL.len() - events;
    assert_eq!(
        (events, DEFINITIONS.len() - newer, MIXINS.len()),
        (31, 98, 3)
    );
}

#[test]
fn event_table_drives_event_type() {
    let rows = table();
    assert_eq!(rows.len(), EventType::ALL.len());
    let wires: Vec<&str> = rows.iter().map(|r| r.wire).collect();
    assert_eq!(wires, EventType::WIRE_NAMES);
    assert_eq!(Event::TAGS, EventType::WIRE_NAMES);
    for (row, &t) in rows.iter().zip(EventType::ALL) {
        assert_eq!(t.as_str(), row.wire);
        assert_eq!(format!("{t:?}"), row.variant);
        assert_eq!(
            row.ty,
            format!("{}Event", row.variant),
            "struct name of {}",
            row.wire
        );
        assert_eq!(
            t.is_attributable(),
            row.attribution == "attributable",
            "{}",
            row.wire
        );
        let area = row.area.to_uppercase();
        let prefixed = row.wire == area || row.wire.starts_with(&format!("{area}_"));
        assert_eq!(
            (row.naming, prefixed),
            (if prefixed { "prefixed" } else { "exempt" }, prefixed),
            "{} is filed under {}",
            row.wire,
            row.area
        );
        assert_eq!(t.area(), row.area);
        assert_eq!(t.definition(), row.ty);
        assert_eq!(t.since(), row.since);
    }
}

#[test]
fn inline_events_fit_the_event_slot_and_boxed_ones_would_not() {
    let slot = std::mem::size_of::<Event>();
    for row in table() {
        match row.boxing {
            "inline" => assert!(
                row.size < slot,
                "{} ({} bytes) in a {slot}-byte Event",
                row.ty,
                row.size
            ),
            "boxed" => assert!(
                row.size >= slot - 8,
                "{} ({} bytes) need not be boxed",
                row.ty,
                row.size
            ),
            other => panic!("unknown boxing {other}"),
        }
    }
}

#[test]
fn accessors_follow_the_attribution_column() {
    let rows = table();
    let cases = load_cases().unwrap();
    for row in &rows {
        let case = cases
            .iter()
            .find(|c| c.definition == row.ty && matches!(c.kind, CaseKind::Valid))
            .unwrap_or_else(|| panic!("no valid case for {}", row.ty));
        let mut event: Event = ag_ui_core::read::decode(&case.text, ReadMode::Exact)
            .unwrap()
            .value;
        assert_eq!(event.event_type().as_str(), row.wire);
        let before = event.subagent_run_id().cloned();
        let id = SubagentRunId::from("sub-table");
        let changed = event.set_subagent_run_id(Some(id.clone()));
        match row.attribution {
            "attributable" => {
                assert!(changed, "{}", row.wire);
                assert_eq!(event.subagent_run_id(), Some(&id));
                assert!(event.set_subagent_run_id(None));
                assert_eq!(event.subagent_run_id(), None);
            }
            "identity" => {
                assert!(!changed, "{}", row.wire);
                assert!(before.is_some(), "{} has its identity", row.wire);
                assert_eq!(event.subagent_run_id().cloned(), before);
            }
            "scoped" => {
                assert!(!changed, "{}", row.wire);
                assert_eq!(event.subagent_run_id(), None);
            }
            other => panic!("unknown attribution {other}"),
        }
        event.set_timestamp(Some(7));
        assert_eq!(event.timestamp(), Some(7));
        event.metadata_mut().insert("k".to_owned(), 1.into());
        assert!(event.metadata().is_some());
        assert!(event.clear_metadata().is_some());
        assert!(event.metadata().is_none());
    }
}

macro_rules! definitions {
    ([] events: [$($event:ident)*] types: [$($other:ident)*] mixins: [$($mixin:ident)*]) => {
        (
            vec![$(stringify!($event)),*],
            vec![$(stringify!($other)),*],
            vec![$(stringify!($mixin)),*],
        )
    };
}

#[test]
fn definitions_table_drives_definitions() {
    let (events, others, mixins) = ag_ui_core::for_each_definition!(definitions);
    assert_eq!(events.len(), EventType::ALL.len());
    assert_eq!(
        events.len() + others.len() + mixins.len(),
        DEFINITIONS.len()
    );
    let table_events: Vec<&str> = table().iter().map(|r| r.ty).collect();
    assert_eq!(events, table_events);
    assert_eq!(mixins, MIXINS);
    let all: BTreeSet<&str> = events
        .iter()
        .chain(&others)
        .chain(&mixins)
        .copied()
        .collect();
    assert_eq!(all.len(), DEFINITIONS.len(), "no name twice");
    assert!(DEFINITIONS.windows(2).all(|w| w[0] < w[1]), "sorted");
    assert_eq!(DEFINITIONS.iter().copied().collect::<BTreeSet<_>>(), all);
    let standalone: BTreeSet<&str> = ag_ui_fixtures::STANDALONE_DEFINITIONS
        .iter()
        .copied()
        .collect();
    assert_eq!(standalone, &all - &mixins.iter().copied().collect());
}

/// The naming rule's exemptions are the protocol's own, and only those: `MESSAGES_SNAPSHOT`
/// under state, `RAW` and `CUSTOM` under special.
#[test]
fn the_naming_exemptions_are_the_protocols() {
    let exempt: Vec<(&str, &str)> = table()
        .iter()
        .filter(|r| r.naming == "exempt")
        .map(|r| (r.wire, r.area))
        .collect();
    assert_eq!(
        exempt,
        [
            ("MESSAGES_SNAPSHOT", "state"),
            ("RAW", "special"),
            ("CUSTOM", "special")
        ]
    );
}

/// Every event has a first version among the versions the crate names, no newer than the
/// newest it speaks, and the `SUBAGENT_*` events are dated with subagents: a table line
/// without a version does not compile (the column is part of the macro's pattern), and one
/// dated after `LATEST` fails here.
#[test]
fn every_event_has_a_first_version_the_crate_speaks() {
    use ag_ui_core::ProtocolVersion;
    let named = [
        ProtocolVersion::V0,
        ProtocolVersion::SUBAGENTS,
        ProtocolVersion::V1_0,
        ProtocolVersion::V1_1,
    ];
    for row in table() {
        assert!(
            named.contains(&row.since) && row.since <= ProtocolVersion::LATEST,
            "{} is dated {}",
            row.wire,
            row.since
        );
        if row.area == "subagent" {
            assert_eq!(row.since, ProtocolVersion::SUBAGENTS, "{}", row.wire);
        }
    }
}
