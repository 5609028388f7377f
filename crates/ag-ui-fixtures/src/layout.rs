//! A crate's module graph, read from its sources, for layout tests: which module imports
//! which, and the import cycles.
//!
//! A module is a `.rs` file under `src/` (`codec/read.rs` is `codec::read`, `model/mod.rs`
//! is `model`, `lib.rs` is `lib`). Module `a` uses module `b` when `a`'s code (outside
//! comments, strings and `$crate::` macro paths) names a path `crate::b::…`, `super::…`
//! that lands in `b`, or `crate::X` where `X` is an item another module re-exports
//! (`pub use b::X` in `lib.rs` or a `mod.rs` resolves to `b`). Items of `use` groups
//! (`use crate::{a::X, b::{Y, Z}}`) are followed one by one.
//!
//! ```no_run
//! let layout = ag_ui_fixtures::layout::Layout::scan("crates/ag-ui-client/src").unwrap();
//! assert!(layout.cycles().is_empty(), "{:?}", layout.cycles());
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The modules of one crate and the imports between them.
#[derive(Debug, Clone)]
pub struct Layout {
    files: BTreeMap<String, PathBuf>,
    uses: BTreeMap<String, BTreeSet<String>>,
    /// For each import `(a, b)`, the first path in `a` that lands in `b`.
    evidence: BTreeMap<(String, String), String>,
}

impl Layout {
    /// Reads every `.rs` file under `src` (a crate's `src/` directory).
    ///
    /// # Errors
    /// A directory or file that cannot be read, or a `src` without any `.rs` file.
    pub fn scan(src: impl AsRef<Path>) -> Result<Self, String> {
        let src = src.as_ref();
        let mut files = BTreeMap::new();
        collect(src, src, &mut files)?;
        if files.is_empty() {
            return Err(format!("{} has no .rs files", src.display()));
        }
        let mut code = BTreeMap::new();
        for (name, path) in &files {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            code.insert(name.clone(), strip(&text));
        }
        // What each facade re-exports: (module, exported name) -> the path it names.
        let mut exports: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        for (name, text) in &code {
            for (exported, path) in reexports(text) {
                let absolute = absolute(name, &path, &files);
                exports.insert((name.clone(), exported), absolute);
            }
            // A `#[macro_export]` macro is named at the crate's root but lives in its file.
            for exported in exported_macros(text) {
                let mut absolute: Vec<String> = if name == "lib" {
                    Vec::new()
                } else {
                    name.split("::").map(str::to_owned).collect()
                };
                absolute.push(exported.clone());
                exports.insert(("lib".to_owned(), exported), absolute);
            }
        }
        let mut uses = BTreeMap::new();
        let mut evidence = BTreeMap::new();
        for (name, text) in &code {
            let mut set = BTreeSet::new();
            // A module brought into scope under a name (`use crate::runs::http as h;`,
            // `use super::store;`): later paths through that name (`h::route`) land in it.
            let mut bound = BTreeMap::new();
            for path in paths(text) {
                let (path, local) = split_rename(&path);
                let absolute = absolute(name, path, &files);
                if files.contains_key(&absolute.join("::")) && local != "*" && local != "_" {
                    bound.insert(local.to_owned(), path.to_owned());
                }
            }
            for path in paths(text).into_iter().chain(through(text, &bound)) {
                let (path, _) = split_rename(&path);
                let path = path.to_owned();
                let absolute = absolute(name, &path, &files);
                if let Some(target) = resolve(&absolute, &files, &exports, 0)
                    && target != *name
                {
                    evidence
                        .entry((name.clone(), target.clone()))
                        .or_insert(path);
                    set.insert(target);
                }
            }
            uses.insert(name.clone(), set);
        }
        Ok(Self {
            files,
            uses,
            evidence,
        })
    }

    /// Every module's name (`lib`, `codec`, `codec::read`), sorted.
    pub fn modules(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Whether the crate has a module of this name.
    #[must_use]
    pub fn has(&self, module: &str) -> bool {
        self.files.contains_key(module)
    }

    /// The modules `module` imports (empty for an unknown name).
    #[must_use]
    pub fn uses(&self, module: &str) -> BTreeSet<&str> {
        self.uses
            .get(module)
            .map(|s| s.iter().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The first path in `from` that makes it import `to` (`crate::error::ClientError`).
    #[must_use]
    pub fn why(&self, from: &str, to: &str) -> Option<&str> {
        self.evidence
            .get(&(from.to_owned(), to.to_owned()))
            .map(String::as_str)
    }

    /// Every import cycle: each set of modules that reach each other through imports (a
    /// strongly connected component of more than one module), as the sorted module names,
    /// with one cycle through them spelled out, each step with the path that makes it
    /// (`a -(crate::b::X)-> b -(super::a::Y)-> a`).
    #[must_use]
    pub fn cycles(&self) -> Vec<String> {
        self.cycles_in(&self.uses)
    }

    /// The import cycles among the modules under `prefix` (`codec`: `codec` and
    /// `codec::…`), imports that leave it not followed.
    #[must_use]
    pub fn cycles_under(&self, prefix: &str) -> Vec<String> {
        let under = |m: &str| m == prefix || m.starts_with(&format!("{prefix}::"));
        let graph = self
            .uses
            .iter()
            .filter(|(m, _)| under(m))
            .map(|(m, set)| {
                (
                    m.clone(),
                    set.iter().filter(|b| under(b)).cloned().collect(),
                )
            })
            .collect();
        self.cycles_in(&graph)
    }

    fn cycles_in(&self, graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
        let mut out = Vec::new();
        for component in components(graph) {
            if component.len() < 2 {
                continue;
            }
            out.push(format!(
                "{{{}}}: {}",
                component.iter().cloned().collect::<Vec<_>>().join(", "),
                self.cycle_through(&component)
            ));
        }
        out
    }

    /// Each import from a module under `from` (a module path prefix, `codec`) into a module
    /// under one of `into`, as `a -> b`.
    #[must_use]
    pub fn imports_between(&self, from: &str, into: &[&str]) -> Vec<String> {
        let under = |m: &str, p: &str| m == p || m.starts_with(&format!("{p}::"));
        let mut out = Vec::new();
        for (a, set) in &self.uses {
            if !under(a, from) {
                continue;
            }
            for b in set {
                if into.iter().any(|p| under(b, p)) {
                    out.push(format!("{a} -> {b}"));
                }
            }
        }
        out
    }
}

/// Tarjan's strongly connected components.
fn components(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.insert(w.to_owned());
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

impl Layout {
    /// A shortest cycle from the component's first module back to itself, inside it.
    fn cycle_through(&self, component: &BTreeSet<String>) -> String {
        let Some(start) = component.iter().next() else {
            return String::new();
        };
        let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.as_str()]);
        while let Some(v) = queue.pop_front() {
            for w in self.uses.get(v).into_iter().flatten() {
                if w == start {
                    let mut path = vec![v];
                    let mut at = v;
                    while let Some(p) = previous.get(at) {
                        path.push(p);
                        at = p;
                    }
                    path.reverse();
                    path.push(start);
                    let mut text = path[0].to_owned();
                    for step in path.windows(2) {
                        let why = self.why(step[0], step[1]).unwrap_or("?");
                        text.push_str(&format!(" -({why})-> {}", step[1]));
                    }
                    return text;
                }
                if component.contains(w) && !previous.contains_key(w.as_str()) && w != start {
                    previous.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        String::new()
    }
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
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
            out.insert(parts.join("::"), path);
        }
    }
    Ok(())
}

/// The module path of `name` as a list of segments (`lib` is the root: none).
fn segments(name: &str) -> Vec<String> {
    if name == "lib" || name == "main" {
        Vec::new()
    } else {
        name.split("::").map(str::to_owned).collect()
    }
}

/// The module a file's `super` is, as segments: the parent of `codec::read` is `codec`; a
/// `mod.rs` (`codec`) is its own folder, so its `super` is the root.
fn parent(name: &str) -> Vec<String> {
    let mut s = segments(name);
    s.pop();
    s
}

/// `path` (as written in module `name`: `crate::a::B`, `super::c`, `self::d`) as absolute
/// segments from the crate root; a path that starts elsewhere (`std::…`, a local name)
/// yields nothing.
fn absolute(name: &str, path: &str, files: &BTreeMap<String, PathBuf>) -> Vec<String> {
    let mut parts = path.split("::").filter(|s| !s.is_empty());
    let mut base = match parts.next() {
        Some("crate") => Vec::new(),
        Some("super") => parent(name),
        Some("self") => segments(name),
        Some(first) => {
            // `use x::Y` in a facade names its child module `x`.
            let mut s = segments(name);
            s.push(first.to_owned());
            if files.contains_key(&s.join("::")) {
                s
            } else {
                return Vec::new();
            }
        }
        None => return Vec::new(),
    };
    for p in parts {
        if p == "super" {
            base.pop();
        } else {
            base.push(p.to_owned());
        }
    }
    base
}

/// The names of the `#[macro_export]` macros `text` (comments stripped) defines.
fn exported_macros(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[macro_export]") {
        rest = &rest[at + "#[macro_export]".len()..];
        let after = rest.trim_start();
        if let Some(def) = after.strip_prefix("macro_rules!") {
            let name: String = def
                .trim_start()
                .chars()
                .take_while(|&c| is_ident(c))
                .collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
    }
    names
}

/// The module an absolute path lands in: its longest prefix that is a module, followed
/// through a facade's re-export of the next segment.
fn resolve(
    path: &[String],
    files: &BTreeMap<String, PathBuf>,
    exports: &BTreeMap<(String, String), Vec<String>>,
    depth: usize,
) -> Option<String> {
    if path.is_empty() || depth > 16 {
        return None;
    }
    let (module, used) =
        (0..=path.len())
            .rev()
            .map(|i| (&path[..i], i))
            .find_map(|(prefix, i)| {
                let name = if prefix.is_empty() {
                    "lib".to_owned()
                } else {
                    prefix.join("::")
                };
                files.contains_key(&name).then_some((name, i))
            })?;
    if let Some(next) = path.get(used) {
        // A name another crate's (`pub use other::Name`, kept as an empty path) is the
        // facade's own: nothing to follow.
        if exports
            .get(&(module.clone(), next.clone()))
            .is_some_and(Vec::is_empty)
        {
            return Some(module);
        }
        if let Some(target) = exports.get(&(module.clone(), next.clone())) {
            let mut through = target.clone();
            through.extend(path[used + 1..].iter().cloned());
            if let Some(found) = resolve(&through, files, exports, depth + 1) {
                return Some(found);
            }
        }
        // A glob re-export (`pub use model::event::*`) may be where the name comes from.
        if let Some(glob) = exports
            .get(&(module.clone(), "*".to_owned()))
            .filter(|g| !g.is_empty())
        {
            let mut through = glob[..glob.len().saturating_sub(1)].to_vec();
            through.extend(path[used..].iter().cloned());
            if let Some(found) = resolve(&through, files, exports, depth + 1) {
                return Some(found);
            }
        }
    }
    Some(module)
}

/// The source without comments, string and character literals (each replaced by a space).
pub(crate) fn strip(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && !b[..i]
                .last()
                .is_some_and(|p| p.is_ascii_alphanumeric() || *p == b'_')
        {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            i = j + close.len();
            out.push(' ');
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if c == b'\'' {
            // A character literal ('x', '\n', '\u{..}'), or a lifetime ('a).
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&x| x == b'\'')
                    .map(|p| i + 2 + p)
            } else {
                let ch = source[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch) == Some(&b'\'')).then_some(i + 1 + ch)
            };
            match end {
                Some(e) => {
                    i = e + 1;
                    out.push(' ');
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let ch = source[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

pub(crate) fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every path that starts with `crate::`, `super::` or `self::` (not `$crate::`), with `use`
/// groups expanded into one path per leaf; and, in `use` statements, paths that start with
/// a child module's name. Inside an inline module (`mod tests { use super::*; }`) a path is
/// rewritten to be relative to the file's module: `super::` there is the file's `self::`.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    // Brace depth, the depths at which inline modules opened, and whether the next `{`
    // opens one (after `mod name`).
    let mut depth = 0usize;
    let mut inline: Vec<usize> = Vec::new();
    let mut module_next = false;
    while i < chars.len() {
        match chars[i] {
            '{' => {
                depth += 1;
                if module_next {
                    inline.push(depth);
                    module_next = false;
                }
            }
            '}' => {
                if inline.last() == Some(&depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            ';' => module_next = false,
            _ => {}
        }
        if !is_ident(chars[i]) || (i > 0 && (is_ident(chars[i - 1]) || chars[i - 1] == '$')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && is_ident(chars[i]) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        let leaves = if word == "mod" {
            module_next = true;
            continue;
        } else if word == "use" {
            let (tree, next) = use_tree(&chars, i);
            i = next;
            tree
        } else if matches!(word.as_str(), "crate" | "super" | "self")
            && chars.get(i) == Some(&':')
            && chars.get(i + 1) == Some(&':')
        {
            // Back up so the tree parser sees the whole path.
            let (tree, next) = use_tree(&chars, start);
            i = next;
            tree
        } else {
            continue;
        };
        out.extend(leaves.into_iter().map(|p| out_of_inline(&p, inline.len())));
    }
    out
}

/// `path` as written inside `levels` nested inline modules, relative to the file's module
/// instead: each of the first `levels` `super::` climbs an inline module (the file's module
/// is `self::`); a `self::` path names an inline module's own items (the file's module).
fn out_of_inline(path: &str, levels: usize) -> String {
    if levels == 0 {
        return path.to_owned();
    }
    if path == "self" || path.starts_with("self::") || path.starts_with("self as ") {
        return "self".to_owned();
    }
    let mut rest = path;
    let mut climbed = 0;
    while climbed < levels {
        if let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            climbed += 1;
        } else if rest == "super" || rest.starts_with("super as ") {
            return "self".to_owned();
        } else {
            break;
        }
    }
    if climbed == 0 {
        path.to_owned()
    } else if climbed == levels {
        format!("self::{rest}")
    } else {
        // Still inside an inline module: its own items.
        "self".to_owned()
    }
}

/// A use-tree leaf (`crate::a::B as C`) as its path and the name it binds (`C`; the last
/// segment when not renamed).
fn split_rename(leaf: &str) -> (&str, &str) {
    match leaf.split_once(" as ") {
        Some((path, name)) => (path.trim(), name.trim()),
        None => (leaf, leaf.rsplit("::").next().unwrap_or(leaf)),
    }
}

/// Paths that start with a name `bound` maps to a module (`h::route` with `h` bound to
/// `crate::runs::http`), rewritten to start with that module's path.
fn through(code: &str, bound: &BTreeMap<String, String>) -> Vec<String> {
    if bound.is_empty() {
        return Vec::new();
    }
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_ident(chars[i])
            || (i > 0 && (is_ident(chars[i - 1]) || chars[i - 1] == '$' || chars[i - 1] == ':'))
        {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && is_ident(chars[i]) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        if let Some(module) = bound.get(&word)
            && chars.get(i) == Some(&':')
            && chars.get(i + 1) == Some(&':')
        {
            let (tree, next) = use_tree(&chars, i + 2);
            i = next.max(i + 2);
            out.extend(tree.into_iter().map(|leaf| format!("{module}::{leaf}")));
        }
    }
    out
}

/// `pub use` re-exports of a module: (the name it exports, the path it names).
fn reexports(code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("pub use ") {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + "pub use ".len()..];
        rest = after;
        if before.is_some_and(is_ident) {
            continue;
        }
        let chars: Vec<char> = after.chars().collect();
        for path in use_tree(&chars, 0).0 {
            let (path, name) = match path.split_once(" as ") {
                Some((p, n)) => (p.to_owned(), n.to_owned()),
                None => {
                    let n = path.rsplit("::").next().unwrap_or_default().to_owned();
                    (path, n)
                }
            };
            if name != "_" {
                out.push((name, path));
            }
        }
    }
    out
}

/// Parses a use tree starting at `i` (leading spaces skipped): `a::b::{c, d::e as f}`. Returns
/// the leaves as full paths (a rename kept as `path as name`) and where parsing stopped.
pub(crate) fn use_tree(chars: &[char], mut i: usize) -> (Vec<String>, usize) {
    let skip = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    skip(&mut i);
    let mut prefix = String::new();
    loop {
        skip(&mut i);
        if chars.get(i) == Some(&'{') {
            i += 1;
            let mut leaves = Vec::new();
            loop {
                skip(&mut i);
                match chars.get(i) {
                    Some('}') => {
                        i += 1;
                        break;
                    }
                    Some(',') => i += 1,
                    None => break,
                    _ => {
                        let (inner, next) = use_tree(chars, i);
                        if next == i {
                            i += 1;
                        } else {
                            i = next;
                        }
                        for leaf in inner {
                            if leaf == "self" || leaf.starts_with("self as ") {
                                let renamed = leaf.strip_prefix("self").unwrap_or_default();
                                leaves.push(format!("{}{renamed}", prefix.trim_end_matches(':')));
                            } else {
                                leaves.push(format!("{prefix}{leaf}"));
                            }
                        }
                    }
                }
            }
            return (leaves, i);
        }
        let start = i;
        while i < chars.len() && (is_ident(chars[i]) || chars[i] == '*') {
            i += 1;
        }
        if i == start {
            let p = prefix.trim_end_matches(':').to_owned();
            return (if p.is_empty() { vec![] } else { vec![p] }, i);
        }
        prefix.extend(&chars[start..i]);
        let save = i;
        skip(&mut i);
        if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
            prefix.push_str("::");
            i += 2;
            continue;
        }
        // `x as y`
        let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
        if rest == "as " {
            i += 3;
            skip(&mut i);
            let s = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            let name: String = chars[s..i].iter().collect();
            return (vec![format!("{prefix} as {name}")], i);
        }
        return (vec![prefix], save);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail by panicking")]
mod tests {
    use super::*;

    #[test]
    fn use_trees_expand_into_leaves() {
        let chars: Vec<char> = "crate::{a::X, b::{Y, self as Z}, c as D};"
            .chars()
            .collect();
        assert_eq!(
            use_tree(&chars, 0).0,
            [
                "crate::a::X",
                "crate::b::Y",
                "crate::b as Z",
                "crate::c as D"
            ]
        );
    }

    #[test]
    fn comments_and_strings_hide_paths() {
        let code = strip(
            "let a = \"crate::x\"; // crate::y\n/* crate::z */ let c = 'c'; crate::w::f(r#\"crate::v\"#);",
        );
        assert_eq!(paths(&code), ["crate::w::f"]);
    }

    /// A crate written out under the temporary directory, file by file.
    fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root = std::env::temp_dir().join(format!("ag-ui-layout-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        root
    }

    /// A `#[macro_export]` macro is named at the crate's root (`crate::each!`) but is its
    /// file's: using it leads there, not to a module a root glob re-exports.
    #[test]
    fn an_exported_macro_is_its_files() {
        let root = tree(
            "macros",
            &[
                (
                    "lib.rs",
                    "mod a;
mod m;
pub use m::*;
",
                ),
                (
                    "a.rs",
                    "crate::each!(f);
",
                ),
                (
                    "m/mod.rs",
                    "mod table;
use crate::a as _a;
",
                ),
                (
                    "m/table.rs",
                    "/// The list.\n#[macro_export]\nmacro_rules! each { ($c:ident) => {}; }\n",
                ),
            ],
        );
        let layout = Layout::scan(&root).unwrap();
        assert_eq!(
            layout.uses("a").into_iter().collect::<Vec<_>>(),
            ["m::table"]
        );
        assert_eq!(layout.cycles(), Vec::<String>::new());
        std::fs::remove_dir_all(root).unwrap();
    }

    /// The shape of a circle the server once had, which a scanner reading `use … as` only
    /// on `pub use` missed: `service` imports `runs::http` under another name inside a
    /// function, `runs::http` imports `service` through `crate::`.
    #[test]
    fn a_circle_through_a_renamed_use_is_found() {
        let root = tree(
            "renamed",
            &[
                ("lib.rs", "mod service;\npub mod runs;\n"),
                (
                    "service.rs",
                    "pub(crate) fn json() {}\nfn handle() {\n    use crate::runs::http as runs_http;\n    runs_http::route();\n}\n",
                ),
                ("runs/mod.rs", "pub(crate) mod http;\n"),
                (
                    "runs/http.rs",
                    "use crate::service::json;\npub(crate) fn route() { json() }\n",
                ),
            ],
        );
        let layout = Layout::scan(&root).unwrap();
        assert_eq!(
            layout.why("service", "runs::http"),
            Some("crate::runs::http")
        );
        assert_eq!(
            layout.cycles(),
            [
                "{runs::http, service}: runs::http -(crate::service::json)-> service -(crate::runs::http)-> runs::http"
            ]
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    /// A facade re-exporting another crate's items (`pub use other::api::Kind;`) is where
    /// a path through it lands, not the crate's root: `crate::threads::Kind::A` in `runs`
    /// uses `threads`, and no circle through `lib` is made up.
    #[test]
    fn a_reexport_from_another_crate_lands_in_the_facade() {
        let root = tree(
            "external-facade",
            &[
                (
                    "lib.rs",
                    "pub mod runs;
pub mod threads;
pub use runs::Runs;
",
                ),
                (
                    "threads/mod.rs",
                    "pub use other::api::{Kind, Phase};
",
                ),
                (
                    "runs/mod.rs",
                    "pub struct Runs;
fn f() { let _ = crate::threads::Kind::A; }
",
                ),
            ],
        );
        let layout = Layout::scan(&root).unwrap();
        assert_eq!(
            layout.why("runs", "threads"),
            Some("crate::threads::Kind::A")
        );
        assert!(!layout.uses("runs").contains("lib"));
        assert_eq!(layout.cycles(), Vec::<String>::new());
        std::fs::remove_dir_all(root).unwrap();
    }

    /// Renames and module names bound by `use` are followed in groups, through `self::`,
    /// `super::` and `crate::`: `h::f` after `use super::{b::h as x}` lands in `b::h`.
    #[test]
    fn names_bound_by_use_are_followed() {
        let root = tree(
            "bound",
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                (
                    "a.rs",
                    "use self::inner as _unused;\nmod inner {}\nuse super::{b::{self as bee}};\nfn f() { bee::h::g(); }\n",
                ),
                ("b/mod.rs", "pub(crate) mod h;\n"),
                ("b/h.rs", "pub(crate) fn g() {}\nuse crate::a as alpha;\n"),
            ],
        );
        let layout = Layout::scan(&root).unwrap();
        assert!(layout.uses("a").contains("b::h"), "{:?}", layout.uses("a"));
        assert!(layout.uses("b::h").contains("a"));
        assert_eq!(layout.cycles().len(), 1, "{:?}", layout.cycles());
        std::fs::remove_dir_all(root).unwrap();
    }

    /// Every crate of the workspace (the folders under `crates/`, those that are workspaces
    /// of their own too): no two files of its sources, nor of its integration tests, import
    /// each other, directly or through others.
    #[test]
    fn no_crate_of_the_workspace_has_a_circle() {
        let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("Cargo.toml").is_file())
            .collect();
        dirs.sort();
        assert!(dirs.len() >= 10, "crates found: {dirs:?}");
        let mut found = Vec::new();
        let mut scanned = 0;
        for dir in &dirs {
            for sub in ["src", "tests/it"] {
                let path = dir.join(sub);
                if !path.is_dir() {
                    continue;
                }
                let layout = Layout::scan(&path).unwrap();
                scanned += 1;
                for cycle in layout.cycles() {
                    let short = path.strip_prefix(&crates).unwrap_or(&path);
                    found.push(format!("{}: {cycle}", short.display()));
                }
            }
        }
        assert!(scanned >= dirs.len(), "scanned {scanned} trees in {dirs:?}");
        assert_eq!(found, Vec::<String>::new(), "files importing each other");
    }

    /// A facade re-exporting another crate's enum: a path to one of its variants through
    /// the facade lands in the facade, not at the crate's root.
    #[test]
    fn a_variant_of_another_crates_reexported_enum_lands_in_the_facade() {
        let root = tree(
            "external",
            &[
                ("lib.rs", "mod a;\nmod b;\nmod c;\npub use a::A;\n"),
                ("a.rs", "pub struct A(crate::b::Kind);\n"),
                (
                    "b.rs",
                    "pub use other::{Kind, Phase};\npub use more::*;\n\
                     fn f() -> bool { crate::b::Kind::Done == super::b::Phase::Up }\n",
                ),
                ("c.rs", "fn g() { let _ = crate::b::Phase::Up; }\n"),
            ],
        );
        let layout = Layout::scan(&root).unwrap();
        assert!(layout.uses("a").contains("b"), "{:?}", layout.uses("a"));
        assert!(layout.uses("b").is_empty(), "{:?}", layout.uses("b"));
        assert!(layout.uses("c").contains("b"), "{:?}", layout.uses("c"));
        assert_eq!(layout.cycles(), Vec::<String>::new());
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn cycles_through_root_reexports_groups_and_super_are_found() {
        let root = tree(
            "cycle",
            &[
                (
                    "lib.rs",
                    "mod a;\nmod b;\nmod c;\npub use b::{B, Other};\npub use c::*;\n",
                ),
                ("a.rs", "use crate::{\n    B,\n};\npub struct A;\n"),
                ("b.rs", "pub struct B(crate::C);\npub struct Other;\n"),
                ("c.rs", "pub struct C;\nfn f() -> super::a::A { todo!() }\n"),
                ("d/mod.rs", "mod e;\nmod f;\n"),
                ("d/e.rs", "use super::f::F;\npub struct E;\n"),
                (
                    "d/f.rs",
                    "// crate::d::e::E is only mentioned\npub struct F(&'static str);\n",
                ),
            ],
        );
        let layout = Layout::scan(&root).unwrap();
        assert_eq!(layout.why("a", "b"), Some("crate::B"));
        assert_eq!(layout.why("b", "c"), Some("crate::C"));
        assert_eq!(layout.why("c", "a"), Some("super::a::A"));
        assert!(layout.uses("d::e").contains("d::f"));
        assert!(layout.uses("d::f").is_empty());
        assert_eq!(
            layout.cycles(),
            ["{a, b, c}: a -(crate::B)-> b -(crate::C)-> c -(super::a::A)-> a"]
        );
        assert_eq!(layout.cycles_under("d"), Vec::<String>::new());
        assert_eq!(layout.imports_between("a", &["b"]), ["a -> b"]);
        std::fs::remove_dir_all(root).unwrap();
    }
}
