//! The public names each crate of the workspace exports, read from its sources, and the
//! names that mean two different things in two crates.
//!
//! A crate's public names are the items it declares `pub` (types, traits, functions,
//! constants, statics), outside `impl` and `fn` bodies and private inline modules (the
//! workspace's `unreachable_pub` lint makes every such item reachable), including those
//! written inside macro invocations (`event_struct! { pub struct RunStartedEvent … }`); and
//! the names its `pub use` gives to another crate's item (`pub use ag_ui_core::X as Y`).
//! Each name has an origin: the crate and module that declare the item. Re-exporting an
//! item under its name keeps its origin, so a name that reaches a user from two crates but
//! is one item is fine; a name with two origins in two crates is a clash.
//!
//! ```no_run
//! let names = ag_ui_fixtures::names::Names::scan_workspace("crates").unwrap();
//! assert!(names.clashes().is_empty(), "{:?}", names.clashes());
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::layout::{is_ident, strip, use_tree};

/// Where an item is declared: its crate (`ag_ui_core`) and module (`model::event`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub struct Origin {
    /// The crate, as code names it (`ag_ui_core`).
    pub krate: String,
    /// The module path inside it (`lib` for the root).
    pub module: String,
    /// The item's own name there.
    pub name: String,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}::{}::{}", self.krate, self.module, self.name)
    }
}

/// The public names of a set of crates, each with its origins.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// (exporting crate, name) -> origin.
    exports: BTreeMap<(String, String), BTreeSet<Origin>>,
}

/// A re-export of another crate's item: (exporting crate, name, target crate, target name).
type Reexport = (String, String, String, String);

impl Names {
    /// Reads every crate under `crates` (each folder with a `Cargo.toml` and a `src/`).
    ///
    /// # Errors
    /// A folder or file that cannot be read.
    pub fn scan_workspace(crates: impl AsRef<Path>) -> Result<Self, String> {
        let crates = crates.as_ref();
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(crates)
            .map_err(|e| format!("cannot read {}: {e}", crates.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("Cargo.toml").is_file() && p.join("src").is_dir())
            .collect();
        dirs.sort();
        let mut sources = Vec::new();
        for dir in dirs {
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().replace('-', "_"))
                .unwrap_or_default();
            let mut files = Vec::new();
            collect(&dir.join("src"), &dir.join("src"), &mut files)?;
            sources.push((name, files));
        }
        Ok(Self::from_sources(&sources))
    }

    /// The names of crates given as (crate name, [(module, source)]).
    #[must_use]
    pub fn from_sources(crates: &[(String, Vec<(String, String)>)]) -> Self {
        let known: BTreeSet<&str> = crates.iter().map(|(c, _)| c.as_str()).collect();
        let mut exports: BTreeMap<(String, String), BTreeSet<Origin>> = BTreeMap::new();
        let mut reexports: Vec<Reexport> = Vec::new();
        for (krate, files) in crates {
            for (module, text) in files {
                let code = strip(text);
                for name in declared(&code) {
                    let origin = Origin {
                        krate: krate.clone(),
                        module: module.clone(),
                        name: name.clone(),
                    };
                    exports
                        .entry((krate.clone(), name))
                        .or_default()
                        .insert(origin);
                }
                for leaf in pub_uses(&code) {
                    let (path, alias) = match leaf.split_once(" as ") {
                        Some((p, a)) => (p.trim().to_owned(), Some(a.trim().to_owned())),
                        None => (leaf.clone(), None),
                    };
                    let segments: Vec<&str> = path.split("::").collect();
                    let Some(last) = segments.last().copied() else {
                        continue;
                    };
                    let exported = alias.unwrap_or_else(|| last.to_owned());
                    if last == "*" || exported == "_" {
                        continue;
                    }
                    let first = segments[0].trim_start_matches("::");
                    if segments.len() > 1 && known.contains(first) && first != krate {
                        reexports.push((
                            krate.clone(),
                            exported,
                            first.to_owned(),
                            last.to_owned(),
                        ));
                    } else if exported != last {
                        // A rename inside the crate: the new name, the item's origin.
                        reexports.push((krate.clone(), exported, krate.clone(), last.to_owned()));
                    }
                }
            }
        }
        // Follow re-exports (a chain through several crates settles in a few rounds).
        for _ in 0..4 {
            for (krate, exported, target, name) in &reexports {
                let origins = exports
                    .get(&(target.clone(), name.clone()))
                    .cloned()
                    .unwrap_or_else(|| {
                        BTreeSet::from([Origin {
                            krate: target.clone(),
                            module: "?".to_owned(),
                            name: name.clone(),
                        }])
                    });
                let entry = exports
                    .entry((krate.clone(), exported.clone()))
                    .or_default();
                if target != krate || entry.is_empty() {
                    entry.retain(|o| o.module != "?");
                    entry.extend(origins);
                }
            }
        }
        Names { exports }
    }

    /// Every name `krate` exports, sorted.
    pub fn of(&self, krate: &str) -> impl Iterator<Item = &str> {
        self.exports
            .keys()
            .filter(move |(k, _)| k == krate)
            .map(|(_, n)| n.as_str())
    }

    /// The origins of `name` as `krate` exports it.
    #[must_use]
    pub fn origins(&self, krate: &str, name: &str) -> BTreeSet<&Origin> {
        self.exports
            .get(&(krate.to_owned(), name.to_owned()))
            .map(|s| s.iter().collect())
            .unwrap_or_default()
    }

    /// Each name that two crates export with different origins, as `name: crate -> origin;
    /// crate -> origin`, sorted.
    #[must_use]
    pub fn clashes(&self) -> Vec<String> {
        let mut by_name: BTreeMap<&str, BTreeMap<&Origin, BTreeSet<&str>>> = BTreeMap::new();
        for ((krate, name), origins) in &self.exports {
            for origin in origins {
                by_name
                    .entry(name)
                    .or_default()
                    .entry(origin)
                    .or_default()
                    .insert(krate);
            }
        }
        let mut out = Vec::new();
        for (name, origins) in by_name {
            let crates: BTreeSet<&str> = origins.values().flatten().copied().collect();
            if origins.len() < 2 || crates.len() < 2 {
                continue;
            }
            let meanings: Vec<String> = origins
                .iter()
                .map(|(o, by)| {
                    format!(
                        "{} -> {o}",
                        by.iter().copied().collect::<Vec<_>>().join(", ")
                    )
                })
                .collect();
            out.push(format!("{name}: {}", meanings.join("; ")));
        }
        out
    }
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "bin") {
                continue;
            }
            collect(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap_or(&path).with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            let module = parts.join("::");
            // A binary's items are not exported.
            if module == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            out.push((module, text));
        }
    }
    Ok(())
}

/// The words of `code` with where each starts, and its braces as `{` / `}` words.
fn words(code: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_ident(c) || c == '$' {
            let start = i;
            i += 1;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            out.push((start, chars[start..i].iter().collect()));
        } else {
            if matches!(c, '{' | '}' | ';' | '(' | ')' | '#' | '[' | ']' | '!' | '=') {
                out.push((i, c.to_string()));
            }
            i += 1;
        }
    }
    out
}

/// The names declared `pub` (not `pub(…)`) outside `impl`, `trait` and `fn` bodies and
/// private inline modules.
fn declared(code: &str) -> Vec<String> {
    let w = words(code);
    let mut out = Vec::new();
    // For each open brace: whether items inside it are hidden.
    let mut hidden: Vec<bool> = Vec::new();
    // Whether the words since the last item boundary open a hiding block.
    let mut opener_hides = false;
    let mut i = 0;
    while i < w.len() {
        let word = w[i].1.as_str();
        match word {
            "{" => {
                let outer = hidden.last().copied().unwrap_or(false);
                hidden.push(outer || opener_hides);
                opener_hides = false;
            }
            "}" => {
                hidden.pop();
                opener_hides = false;
            }
            ";" => opener_hides = false,
            "impl" | "fn" | "trait" => opener_hides = true,
            "mod" => {
                let public = i > 0 && w[i - 1].1 == "pub";
                if !public {
                    opener_hides = true;
                }
            }
            "pub" if !hidden.last().copied().unwrap_or(false) => {
                // `pub(crate)` and the like are not exports.
                if w.get(i + 1).is_some_and(|n| n.1 == "(") {
                    i += 1;
                    continue;
                }
                let mut j = i + 1;
                while w
                    .get(j)
                    .is_some_and(|n| matches!(n.1.as_str(), "async" | "unsafe" | "extern"))
                    || (w.get(j).is_some_and(|n| n.1 == "const")
                        && w.get(j + 1).is_some_and(|n| n.1 == "fn"))
                {
                    j += 1;
                }
                if let (Some(kind), Some(name)) = (w.get(j), w.get(j + 1))
                    && matches!(
                        kind.1.as_str(),
                        "struct" | "enum" | "trait" | "fn" | "const" | "static" | "type" | "union"
                    )
                    && name
                        .1
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && name.1 != "_"
                {
                    out.push(name.1.clone());
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The leaves of every `pub use` (not `pub(…) use`).
fn pub_uses(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut rest = code;
    let mut offset = 0;
    while let Some(at) = rest.find("pub use ") {
        let before = rest[..at].chars().next_back();
        let start = offset + at + "pub use ".len();
        offset = start;
        rest = &code[start..];
        if before.is_some_and(is_ident) {
            continue;
        }
        let index = code[..start].chars().count();
        out.extend(use_tree(&chars, index).0);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail by panicking")]
mod tests {
    use super::*;

    fn source(krate: &str, files: &[(&str, &str)]) -> (String, Vec<(String, String)>) {
        (
            krate.to_owned(),
            files
                .iter()
                .map(|(m, t)| ((*m).to_owned(), (*t).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn a_name_with_two_origins_in_two_crates_is_a_clash_and_a_reexport_is_not() {
        let names = Names::from_sources(&[
            source(
                "core",
                &[
                    ("lib", "mod error;\npub use error::{ErrorKind, BoxError};\n"),
                    (
                        "error",
                        "pub enum ErrorKind { A }\npub type BoxError = Box<dyn std::error::Error>;\n\
                         impl ErrorKind { pub fn as_str(&self) -> &str { \"\" } }\n\
                         mod tests { pub struct Hidden; }\n",
                    ),
                ],
            ),
            source(
                "client",
                &[(
                    "lib",
                    "pub use core::BoxError;\npub use core::ErrorKind as CoreKind;\n\
                         pub(crate) struct Private;\npub struct Client;\n\
                         pub type ErrorKind = u8;\n",
                )],
            ),
            source(
                "server",
                &[(
                    "lib",
                    "macro_rules! m { ($n:ident) => { pub struct $n; } }\n\
                     m! { pub struct Client = \"CLIENT\" }\npub const fn f() {}\n",
                )],
            ),
        ]);
        assert_eq!(
            names.of("client").collect::<Vec<_>>(),
            ["BoxError", "Client", "CoreKind", "ErrorKind"]
        );
        assert_eq!(
            names.of("core").collect::<Vec<_>>(),
            ["BoxError", "ErrorKind"]
        );
        assert_eq!(names.of("server").collect::<Vec<_>>(), ["Client", "f"]);
        assert_eq!(
            names
                .origins("client", "CoreKind")
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["core::error::ErrorKind"]
        );
        assert_eq!(
            names.clashes(),
            [
                "Client: client -> client::lib::Client; server -> server::lib::Client",
                "ErrorKind: client -> client::lib::ErrorKind; core -> core::error::ErrorKind",
            ]
        );
    }

    /// Every crate of the workspace: a public name means one thing.
    #[test]
    fn no_public_name_means_two_things_in_the_workspace() {
        let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let names = Names::scan_workspace(&crates).unwrap();
        assert!(
            names.of("ag_ui_core").count() > 100,
            "core's names are read"
        );
        assert!(names.of("ag_ui_server").any(|n| n == "AgentService"));
        assert_eq!(
            names.clashes(),
            Vec::<String>::new(),
            "names with two meanings"
        );
    }
}
