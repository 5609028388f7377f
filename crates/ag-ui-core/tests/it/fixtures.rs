//! Runs every case of `fixtures/` (format: `fixtures/README.md`) through the readers.

use ag_ui_core::ReadMode;
use ag_ui_fixtures::{CaseKind, Failures, decode_as, decode_stream_event, load_cases};

fn load() -> Vec<ag_ui_fixtures::Case> {
    match load_cases() {
        Ok(c) => c,
        Err(e) => panic!("cannot load fixtures: {e}"),
    }
}

#[test]
fn every_fixture_case_holds() {
    let mut f = Failures::new();
    for case in load() {
        let def = case.definition.as_str();
        let result = match &case.kind {
            CaseKind::Valid => check_valid(def, &case),
            CaseKind::Invalid { expect } => check_invalid(def, &case, expect),
            CaseKind::Forgiving {
                warnings,
                output,
                ids,
            } => {
                let forgiving = match ids {
                    Some(ids) => decode_stream_event(&case.text, ReadMode::Forgiving, ids)
                        .map_err(|e| e.to_string()),
                    None => match decode_as(def, &case.text, ReadMode::Forgiving) {
                        Some(r) => r.map_err(|e| e.to_string()),
                        None => Err(format!("unknown definition {def}")),
                    },
                };
                match forgiving {
                    Ok(out) if out.warnings != *warnings => Err(format!(
                        "warnings {:?}, expected {:?}",
                        out.warnings, warnings
                    )),
                    Ok(out) if out.encoded != *output => {
                        Err(format!("output {}, expected {output}", out.encoded))
                    }
                    Ok(_) => {
                        let exact_valid = warnings
                            .iter()
                            .all(|(k, _)| k == "null-state" || k == "ignored-member");
                        let exact = match ids {
                            // A dropped event is not an accepted one.
                            Some(ids) => decode_stream_event(&case.text, ReadMode::Exact, ids)
                                .map_err(|e| e.to_string())
                                .and_then(|o| {
                                    if o.encoded.is_null() {
                                        Err("dropped".to_owned())
                                    } else {
                                        Ok(())
                                    }
                                }),
                            None => decode_as(def, &case.text, ReadMode::Exact)
                                .map_or(Ok(()), |r| r.map(|_| ()).map_err(|e| e.to_string())),
                        };
                        match (exact_valid, exact) {
                            (true, Err(e)) => {
                                Err(format!("exact reader rejected a schema-valid input: {e}"))
                            }
                            (false, Ok(())) => Err("exact reader accepted it".to_owned()),
                            _ => Ok(()),
                        }
                    }
                    Err(e) => Err(format!("forgiving reader rejected it: {e}")),
                }
            }
            CaseKind::RoundTrip { expected } => {
                match decode_as(def, &case.text, ReadMode::Forgiving) {
                    Some(Ok(out)) if out.encoded == *expected => Ok(()),
                    Some(Ok(out)) => Err(format!("wrote {}, expected {expected}", out.encoded)),
                    Some(Err(e)) => Err(format!("rejected: {e}")),
                    None => Err(format!("unknown definition {def}")),
                }
            }
            _ => Err("unknown case kind".to_owned()),
        };
        f.check(&case.name, result);
    }
    assert!(f.checked > 0, "no fixture cases found");
    f.finish("fixture");
}

fn check_valid(def: &str, case: &ag_ui_fixtures::Case) -> Result<(), String> {
    for mode in [ReadMode::Forgiving, ReadMode::Exact] {
        match decode_as(def, &case.text, mode) {
            None => return Err(format!("unknown definition {def}")),
            Some(Err(e)) => return Err(format!("{mode:?} reader rejected it: {e}")),
            Some(Ok(out)) if !out.warnings.is_empty() => {
                return Err(format!("{mode:?} reader warned: {:?}", out.warnings));
            }
            Some(Ok(out)) if out.encoded != case.input => {
                return Err(format!("re-encoded as {}, not as itself", out.encoded));
            }
            Some(Ok(_)) => {}
        }
    }
    // A concrete event or message is also a member of its union.
    if let Some(u) = union_of(def) {
        match decode_as(u, &case.text, ReadMode::Exact) {
            Some(Ok(out)) if out.encoded == case.input => {}
            Some(Ok(out)) => return Err(format!("as {u}: re-encoded as {}", out.encoded)),
            Some(Err(e)) => return Err(format!("as {u}: rejected: {e}")),
            None => return Err(format!("unknown union {u}")),
        }
    }
    Ok(())
}

/// The tagged union a concrete definition is a member of.
fn union_of(def: &str) -> Option<&'static str> {
    const PARTS: &[&str] = &[
        "TextPart",
        "ImagePart",
        "AudioPart",
        "VideoPart",
        "DocumentPart",
    ];
    const SOURCES: &[&str] = &["DataSource", "UrlSource", "FileSource"];
    if def != "Event" && def.ends_with("Event") {
        Some("Event")
    } else if def != "Message" && def.ends_with("Message") {
        Some("Message")
    } else if PARTS.contains(&def) {
        Some("ContentPart")
    } else if SOURCES.contains(&def) {
        Some("PartSource")
    } else if def.starts_with("RunFinished") && def.ends_with("Outcome") {
        (def != "RunFinishedOutcome").then_some("RunFinishedOutcome")
    } else if def.starts_with("SubagentFinished") && def.ends_with("Outcome") {
        (def != "SubagentFinishedOutcome").then_some("SubagentFinishedOutcome")
    } else if def.ends_with("Operation") {
        Some("JsonPatchOperation")
    } else {
        None
    }
}

/// Exact readers reject an invalid case at its pointer; forgiving readers too, unless the
/// case is `exact-only`, where they accept it with a warning at that pointer. Read as the
/// union containing its definition, the document gets the same verdict.
fn check_invalid(
    def: &str,
    case: &ag_ui_fixtures::Case,
    expect: &ag_ui_fixtures::Expect,
) -> Result<(), String> {
    let at = expect.pointer.as_str();
    for d in std::iter::once(def).chain(union_of(def)) {
        for mode in [ReadMode::Exact, ReadMode::Forgiving] {
            let lenient = mode == ReadMode::Forgiving && expect.exact_only;
            match decode_as(d, &case.text, mode) {
                None => return Err(format!("unknown definition {d}")),
                Some(Ok(out)) if lenient => {
                    if !out.warnings.iter().any(|(_, p)| p == at) {
                        return Err(format!(
                            "as {d}: {mode:?} reader accepted it without a warning at {at:?}: \
                             {:?}",
                            out.warnings
                        ));
                    }
                }
                Some(Ok(_)) => return Err(format!("as {d}: {mode:?} reader accepted it")),
                Some(Err(e)) if lenient => {
                    return Err(format!(
                        "as {d}: {mode:?} reader rejected an exact-only case: {e}"
                    ));
                }
                Some(Err(e)) if e.pointer() != Some(at) => {
                    return Err(format!(
                        "as {d}: {mode:?} reader rejected it at {:?}, expected {at:?}: {e}",
                        e.pointer()
                    ));
                }
                Some(Err(_)) => {}
            }
        }
    }
    Ok(())
}

#[test]
fn every_event_type_has_valid_minimal_and_full_cases() {
    let cases = load();
    let mut missing = Vec::new();
    for t in ag_ui_core::EventType::ALL {
        let def = t.definition();
        let valid: Vec<_> = cases
            .iter()
            .filter(|c| c.definition == def && matches!(c.kind, CaseKind::Valid))
            .collect();
        if valid.len() < 2 {
            missing.push(format!("{def} ({} valid cases)", valid.len()));
        }
        // A case is of a version that has its event (the event table's first version): a
        // case of an event newer than 1.0 is named for its version (`v1.1-…`), so that the
        // 1.0 readers, schema and SDKs skip it.
        for c in cases.iter().filter(|c| c.definition == def) {
            let version = ag_ui_fixtures::protocol_of(&c.name);
            if version < t.since() {
                missing.push(format!(
                    "{}: a case of AG-UI {version}, which does not have {t} (first in {}): \
                     name it `v{}.{}-…`",
                    c.name,
                    t.since(),
                    t.since().major,
                    t.since().minor
                ));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "events without a minimal and a full valid case of their version: {missing:?}"
    );
}

/// The `rule` vocabulary of `.expect.json` (fixtures/README.md) with the rule of spec §6
/// each one illustrates by default (`0`: none; `required` and `type` name a rule only
/// through an explicit `spec` member).
const RULES: &[(&str, u8)] = &[
    ("required", 0),
    ("type", 0),
    ("object-only", 4),
    ("null", 12),
    ("optional-null", 6),
    ("integer", 1),
    ("range", 1),
    ("enum", 7),
    ("const", 7),
    ("tag", 7),
    ("event-type", 0),
    ("legacy-event", 0),
    ("min-items", 3),
    ("json-pointer", 2),
    ("legacy-binary", 10),
];

/// The §6 rule an invalid case illustrates: its `spec` member (`"§6.N"`) or, without one,
/// the default of its `rule`.
fn section6_rule(expect: &ag_ui_fixtures::Expect) -> Option<u8> {
    match &expect.spec {
        Some(s) => s.strip_prefix("§6.").and_then(|n| n.parse().ok()),
        None => RULES
            .iter()
            .find(|(r, _)| *r == expect.rule)
            .map(|(_, n)| *n)
            .filter(|n| *n != 0),
    }
}

#[test]
fn coverage_of_definitions_and_validation_rules() {
    let cases = load();
    let mut problems = Vec::new();
    // Per definition: valid, invalid, forgiving, round-trip.
    let mut table: std::collections::BTreeMap<&str, [usize; 4]> =
        ag_ui_fixtures::STANDALONE_DEFINITIONS
            .iter()
            .map(|d| (*d, [0; 4]))
            .collect();
    let mut rules: std::collections::BTreeMap<u8, Vec<&str>> =
        (1..=12).map(|n| (n, Vec::new())).collect();
    for c in &cases {
        let slot = match &c.kind {
            CaseKind::Valid => 0,
            CaseKind::Invalid { expect } => {
                if !RULES.iter().any(|(r, _)| *r == expect.rule) {
                    problems.push(format!("{}: unknown rule {:?}", c.name, expect.rule));
                }
                if let Some(s) = &expect.spec
                    && !s.starts_with('§')
                {
                    problems.push(format!("{}: spec {s:?} is not a section (§…)", c.name));
                }
                if let Some(n) = section6_rule(expect) {
                    rules.entry(n).or_default().push(&c.name);
                }
                1
            }
            CaseKind::Forgiving { .. } => 2,
            _ => 3,
        };
        match table.get_mut(c.definition.as_str()) {
            Some(row) => row[slot] += 1,
            None => problems.push(format!("{}: {} is not a definition", c.name, c.definition)),
        }
        // A valid document of a concrete definition is a valid document of its union too
        // (the runner reads it as both).
        if slot == 0
            && let Some(row) = union_of(&c.definition).and_then(|u| table.get_mut(u))
        {
            row[0] += 1;
        }
    }
    println!("definition                          valid invalid forgiving roundtrip");
    for (def, [v, i, f, r]) in &table {
        println!("{def:<36}{v:>5}{i:>8}{f:>10}{r:>10}");
        if *v == 0 {
            problems.push(format!("{def} has no valid case"));
        }
    }
    println!("spec §6 rule   invalid cases");
    for (n, names) in &rules {
        println!("rule {n:<10}{:>5}", names.len());
        if *n <= 10 && names.is_empty() {
            problems.push(format!("§6 rule {n} has no invalid case"));
        }
    }
    let total = cases.len();
    let with_valid = table.values().filter(|r| r[0] > 0).count();
    println!(
        "{total} cases; {with_valid} of {} definitions with a valid case",
        table.len()
    );
    assert!(problems.is_empty(), "fixture coverage: {problems:#?}");
}

#[test]
fn manifest_lists_exactly_the_fixture_files() {
    let root = ag_ui_fixtures::fixtures_dir();
    let mut on_disk = Vec::new();
    collect(&root, &root, &mut on_disk);
    on_disk.sort();
    let manifest_path = root.join("MANIFEST.txt");
    let expected = on_disk.join("\n") + "\n";
    if std::env::var_os("AG_UI_BLESS").is_some() {
        std::fs::write(&manifest_path, &expected).expect("write MANIFEST.txt");
        return;
    }
    let manifest = std::fs::read_to_string(&manifest_path).unwrap_or_default();
    let listed: Vec<&str> = manifest.lines().filter(|l| !l.is_empty()).collect();
    let missing: Vec<_> = listed
        .iter()
        .filter(|l| !on_disk.iter().any(|d| d == *l))
        .collect();
    let unlisted: Vec<_> = on_disk
        .iter()
        .filter(|d| !listed.contains(&d.as_str()))
        .collect();
    assert!(
        missing.is_empty() && unlisted.is_empty(),
        "fixtures/MANIFEST.txt is stale (rerun with AG_UI_BLESS=1 after checking the change):\n  \
         listed but missing: {missing:?}\n  present but unlisted: {unlisted:?}"
    );
}

fn collect(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(root, &p, out);
        } else if let Ok(rel) = p.strip_prefix(root) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            if rel != "MANIFEST.txt" {
                out.push(rel);
            }
        }
    }
}
