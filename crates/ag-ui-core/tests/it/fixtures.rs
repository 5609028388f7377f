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
            CaseKind::Invalid { expect } => {
                let mut r = Ok(());
                for mode in [ReadMode::Forgiving, ReadMode::Exact] {
                    match decode_as(def, &case.text, mode) {
                        None => r = Err(format!("unknown definition {def}")),
                        Some(Ok(_)) => r = Err(format!("{mode:?} reader accepted it")),
                        Some(Err(e)) if e.pointer() != Some(expect.pointer.as_str()) => {
                            r = Err(format!(
                                "{mode:?} reader rejected it at {:?}, expected {:?}: {e}",
                                e.pointer(),
                                expect.pointer
                            ));
                        }
                        Some(Err(_)) => {}
                    }
                }
                r
            }
            CaseKind::Forgiving {
                warnings,
                output,
                ids,
            } => {
                let forgiving = match ids {
                    Some(ids) => {
                        decode_stream_event(&case.text, ReadMode::Forgiving, ids).map(|o| {
                            o.ok_or_else(|| ag_ui_core::Error::Encode {
                                message: "dropped".into(),
                            })
                        })
                    }
                    None => decode_as(def, &case.text, ReadMode::Forgiving).ok_or_else(|| {
                        ag_ui_core::Error::Encode {
                            message: format!("unknown definition {def}"),
                        }
                    }),
                };
                match forgiving {
                    Ok(Ok(out)) if out.warnings != *warnings => Err(format!(
                        "warnings {:?}, expected {:?}",
                        out.warnings, warnings
                    )),
                    Ok(Ok(out)) if out.encoded != *output => {
                        Err(format!("output {}, expected {output}", out.encoded))
                    }
                    Ok(Ok(_)) => {
                        let exact_valid = warnings
                            .iter()
                            .all(|(k, _)| k == "null-state" || k == "ignored-member");
                        let exact = match ids {
                            Some(ids) => {
                                decode_stream_event(&case.text, ReadMode::Exact, ids).map(|_| ())
                            }
                            None => decode_as(def, &case.text, ReadMode::Exact)
                                .map_or(Ok(()), |r| r.map(|_| ())),
                        };
                        match (exact_valid, exact) {
                            (true, Err(e)) => {
                                Err(format!("exact reader rejected a schema-valid input: {e}"))
                            }
                            (false, Ok(())) => Err("exact reader accepted it".to_owned()),
                            _ => Ok(()),
                        }
                    }
                    Ok(Err(e)) | Err(e) => Err(format!("forgiving reader rejected it: {e}")),
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
    let union = if def.ends_with("Event") && def != "Event" {
        Some("Event")
    } else if def.ends_with("Message") && def != "Message" {
        Some("Message")
    } else if def.ends_with("Part") {
        Some("ContentPart")
    } else if def.ends_with("Operation") && !def.ends_with("Outcome") {
        Some("JsonPatchOperation")
    } else {
        None
    };
    if let Some(u) = union {
        match decode_as(u, &case.text, ReadMode::Exact) {
            Some(Ok(out)) if out.encoded == case.input => {}
            Some(Ok(out)) => return Err(format!("as {u}: re-encoded as {}", out.encoded)),
            Some(Err(e)) => return Err(format!("as {u}: rejected: {e}")),
            None => return Err(format!("unknown union {u}")),
        }
    }
    Ok(())
}

#[test]
fn every_event_type_has_valid_minimal_and_full_cases() {
    let cases = load();
    let mut missing = Vec::new();
    for t in ag_ui_core::EventType::ALL {
        let def: String = t
            .as_str()
            .split('_')
            .map(|p| p[..1].to_owned() + &p[1..].to_lowercase())
            .collect::<String>()
            + "Event";
        let valid: Vec<_> = cases
            .iter()
            .filter(|c| c.definition == def && matches!(c.kind, CaseKind::Valid))
            .collect();
        if valid.len() < 2 {
            missing.push(format!("{def} ({} valid cases)", valid.len()));
        }
    }
    assert!(
        missing.is_empty(),
        "events without a minimal and a full valid case: {missing:?}"
    );
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
