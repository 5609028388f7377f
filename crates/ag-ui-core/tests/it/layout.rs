//! The module layout of docs/design.md ("Layout"), checked from the sources: inside each
//! folder no two modules import each other, and `codec` calls nothing in `model`, `stream`
//! or `thread`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, with its module path (`codec::read`, `model::event`).
fn modules(root: &Path, dir: &Path, out: &mut BTreeMap<String, PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            modules(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            out.insert(parts.join("::"), path);
        }
    }
}

/// The paths after `crate::` in `source` (outside comments and macro bodies' `$crate::`),
/// with the items of `use crate::a::{b, c}` groups expanded.
fn crate_paths(source: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let preceded = rest[..i].chars().next_back();
            let after = &rest[i + "crate::".len()..];
            rest = after;
            if matches!(preceded, Some(c) if c == '$' || c.is_alphanumeric() || c == '_') {
                continue;
            }
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(after.len());
            let path = after[..end].trim_end_matches(':').to_owned();
            if after[end..].starts_with('{') && after[..end].ends_with("::") {
                let group =
                    &after[end + 1..after[end..].find('}').map_or(after.len(), |j| end + j)];
                for item in group.split(',') {
                    let item = item.trim().split("::").next().unwrap_or_default();
                    if !item.is_empty() {
                        paths.push(format!("{path}::{item}"));
                    }
                }
            } else {
                paths.push(path);
            }
        }
    }
    paths
}

#[test]
fn modules_of_a_folder_do_not_import_each_other_and_codec_calls_no_upper_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut mods = BTreeMap::new();
    modules(&root, &root, &mut mods);
    assert!(mods.contains_key("codec::read") && mods.contains_key("model::event"));
    let mut deps: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (name, path) in &mods {
        let source = std::fs::read_to_string(path).unwrap();
        let mut set = BTreeSet::new();
        for p in crate_paths(&source) {
            let segments: Vec<&str> = p.split("::").collect();
            if let Some(target) = (1..=segments.len())
                .rev()
                .map(|i| segments[..i].join("::"))
                .find(|m| mods.contains_key(m))
                && target != *name
            {
                set.insert(mods.get_key_value(&target).unwrap().0.as_str());
            }
            if name.starts_with("codec") && ["model", "stream", "thread"].contains(&segments[0]) {
                panic!("{name} uses crate::{p}: codec must not call model, stream or thread");
            }
        }
        deps.insert(name.as_str(), set);
    }
    let folder = |m: &str| m.rsplit_once("::").map_or("", |(f, _)| f).to_owned();
    let mut cycles = Vec::new();
    for (a, uses) in &deps {
        for b in uses {
            if a < b && folder(a) == folder(b) && deps[b].contains(a) {
                cycles.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "modules importing each other: {cycles:?}"
    );
    // The check sees imports: the two that used to form cycles are still found.
    assert!(deps["codec::wire"].contains("codec::skip"));
    assert!(deps["codec::skip"].contains("codec::key"));
    assert!(deps["model::tool"].contains("codec::read"));
}
