//! Test support: loads the language-neutral cases under `fixtures/` (format:
//! `fixtures/README.md`) and decodes a document as any AG-UI definition by name.
//!
//! The corpus is read at run time, so adding a case needs no code.

pub mod doc_table;
pub mod layout;
pub mod names;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ag_ui_core::read::decode;
use ag_ui_core::write::to_string;
use ag_ui_core::*;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The fixtures directory of this repository.
#[must_use]
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The protocol version a case is written for, from its file name (`fixtures/README.md`,
/// "Versions"): a name starting `v<MAJOR>.<MINOR>-` (`v1.1-with-type`) needs that version;
/// any other name is a 1.0 case.
#[must_use]
pub fn protocol_of(name: &str) -> ProtocolVersion {
    let file = name.rsplit('/').next().unwrap_or(name);
    file.strip_prefix('v')
        .and_then(|rest| rest.split_once('-'))
        .and_then(|(version, _)| ProtocolVersion::parse(version))
        .unwrap_or(ProtocolVersion::V1_0)
}

/// What kind of case a file is.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CaseKind {
    /// `valid/`: accepted by every reader without warnings; re-encodes to itself.
    Valid,
    /// `invalid/`: rejected by every reader, at `expect.pointer`.
    Invalid {
        /// The `.expect.json` beside the document.
        expect: Expect,
    },
    /// `forgiving/`: accepted by the forgiving reader with these warnings and this output.
    Forgiving {
        /// The warnings, in document order.
        warnings: Vec<(String, String)>,
        /// The normalized document the reader yields (as re-encoded); `null` for a
        /// stream-level case whose event the stream decoder drops.
        output: Value,
        /// Ids a stream decoder mints while translating (legacy events); when present the
        /// case is read through [`EventDecoder`].
        ids: Option<Vec<String>>,
    },
    /// `roundtrip/`: decoding `input` (forgiving) and encoding gives exactly `expected`.
    RoundTrip {
        /// The JSON the producer path must write.
        expected: Value,
    },
}

/// The `.expect.json` of an invalid case.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[non_exhaustive]
pub struct Expect {
    /// Rule id (vocabulary in `fixtures/README.md`).
    pub rule: String,
    /// JSON Pointer of the instance location that fails.
    pub pointer: String,
    /// The JSON Schema keyword that fails there.
    #[serde(default)]
    pub keyword: Option<String>,
    /// For `required`: the missing property.
    #[serde(default)]
    pub property: Option<String>,
    /// The section of the specification the case illustrates (`"§6.2"` for rule 2 of §6),
    /// when the rule vocabulary alone does not say.
    #[serde(default)]
    pub spec: Option<String>,
    /// Only an exact reader must reject the document; a forgiving reader accepts it with a
    /// warning at `pointer` (an optional member set to `null`).
    #[serde(default, rename = "exact-only")]
    pub exact_only: bool,
    /// Why.
    #[serde(default)]
    pub note: Option<String>,
}

/// One fixture case.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Case {
    /// The definition directory (`TextMessageStartEvent`, `Message`, …).
    pub definition: String,
    /// `valid/…`, `invalid/…`, …: the path below `fixtures/`, for messages.
    pub name: String,
    /// The document (the `input` of forgiving and round-trip cases).
    pub input: Value,
    /// The document's exact text as stored (for valid and invalid cases), so that readers see
    /// key order, duplicates and numbers exactly as written.
    pub text: String,
    /// What the case asserts.
    pub kind: CaseKind,
}

fn read_json(path: &Path) -> Result<(Value, String), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((v, text))
}

/// The exact text of the `input` member of a forgiving or round-trip case, so that readers
/// see its members in the order the file writes them (warnings are in document order).
fn input_text(file_text: &str, name: &str) -> Result<String, String> {
    #[derive(serde::Deserialize)]
    struct Wrapped<'a> {
        #[serde(borrow)]
        input: &'a serde_json::value::RawValue,
    }
    serde_json::from_str::<Wrapped<'_>>(file_text)
        .map(|w| w.input.get().to_owned())
        .map_err(|e| format!("{name}: {e}"))
}

/// A required member of a case file, or an error naming the file and the member.
fn member(doc: &Value, key: &str, name: &str) -> Result<Value, String> {
    doc.get(key)
        .cloned()
        .ok_or_else(|| format!("{name}: no `{key}` member"))
}

/// Loads every case under `fixtures/<Definition>/{valid,invalid,forgiving,roundtrip}/`.
///
/// # Errors
/// A message naming the first malformed fixture file.
pub fn load_cases() -> Result<Vec<Case>, String> {
    let root = fixtures_dir();
    let mut cases = Vec::new();
    let mut defs: Vec<_> = std::fs::read_dir(&root)
        .map_err(|e| format!("{}: {e}", root.display()))?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|d| d != "streams" && !d.starts_with('_'))
        .collect();
    defs.sort();
    for def in defs {
        for sub in ["valid", "invalid", "forgiving", "roundtrip"] {
            let dir = root.join(&def).join(sub);
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut files: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
            files.sort();
            for path in files {
                let file = path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if !file.ends_with(".json") || file.ends_with(".expect.json") {
                    continue;
                }
                let name = format!("{def}/{sub}/{file}");
                let (doc, text) = read_json(&path)?;
                let case = match sub {
                    "valid" => Case {
                        definition: def.clone(),
                        name,
                        input: doc,
                        text,
                        kind: CaseKind::Valid,
                    },
                    "invalid" => {
                        let ep = path.with_file_name(file.replace(".json", ".expect.json"));
                        let (ev, _) = read_json(&ep)?;
                        let expect: Expect = serde_json::from_value(ev)
                            .map_err(|e| format!("{}: {e}", ep.display()))?;
                        Case {
                            definition: def.clone(),
                            name,
                            input: doc,
                            text,
                            kind: CaseKind::Invalid { expect },
                        }
                    }
                    "forgiving" => {
                        let input = member(&doc, "input", &name)?;
                        let output = member(&doc, "output", &name)?;
                        let warnings = doc
                            .get("warnings")
                            .and_then(Value::as_array)
                            .ok_or(format!("{name}: no warnings array"))?
                            .iter()
                            .map(|w| {
                                (
                                    w["kind"].as_str().unwrap_or_default().to_owned(),
                                    w["pointer"].as_str().unwrap_or_default().to_owned(),
                                )
                            })
                            .collect();
                        let ids = doc.get("ids").map(|ids| {
                            ids.as_array()
                                .map(|a| {
                                    a.iter()
                                        .filter_map(|i| i.as_str().map(str::to_owned))
                                        .collect()
                                })
                                .unwrap_or_default()
                        });
                        let text = input_text(&text, &name)?;
                        Case {
                            definition: def.clone(),
                            name,
                            input,
                            text,
                            kind: CaseKind::Forgiving {
                                warnings,
                                output,
                                ids,
                            },
                        }
                    }
                    _ => {
                        let input = member(&doc, "input", &name)?;
                        let expected = member(&doc, "expected", &name)?;
                        let text = input_text(&text, &name)?;
                        Case {
                            definition: def.clone(),
                            name,
                            input,
                            text,
                            kind: CaseKind::RoundTrip { expected },
                        }
                    }
                };
                cases.push(case);
            }
        }
    }
    Ok(cases)
}

/// The outcome of decoding a document as a definition.
#[derive(Debug)]
#[non_exhaustive]
pub struct Outcome {
    /// The decoded value re-encoded as JSON.
    pub encoded: Value,
    /// The warnings, as (kind, pointer).
    pub warnings: Vec<(String, String)>,
}

fn run<T: DeserializeOwned + write::Encode>(json: &str, mode: ReadMode) -> Result<Outcome, Error> {
    let d = decode::<T>(json, mode)?;
    let text = to_string(&d.value)?;
    // The type's generated writer writes the bytes its `Serialize` impl gives serde_json.
    assert_eq!(
        serde_json::to_string(&d.value).ok().as_deref(),
        Some(text.as_str()),
        "the generated writer and serde_json disagree"
    );
    let encoded = ag_ui_core::read::from_str(&text)?;
    Ok(Outcome {
        encoded,
        warnings: d
            .warnings
            .iter()
            .map(|w| (w.kind.as_str().to_owned(), w.pointer.clone()))
            .collect(),
    })
}

/// Declares the registry of definitions: [`STANDALONE_DEFINITIONS`] and [`decode_as`] come from one
/// list, so they cannot disagree.
macro_rules! registry {
    ([] events: [$($event:ident)*] types: [$($other:ident)*] mixins: [$($mixin:ident)*]) => {
        registry!(@ $($event,)* $($other,)*);
    };
    (@ $($name:ident),* $(,)?) => {
        /// Every standalone definition name [`decode_as`] knows (the 1.0 schema's definitions
        /// less the [`MIXINS`]): the events in the event table's order, then the others sorted.
        pub const STANDALONE_DEFINITIONS: &[&str] = &[$(stringify!($name)),*];

        /// Decodes `json` as the definition `def` in `mode`.
        ///
        /// # Errors
        /// The reader's error; `None` when `def` is not a known definition.
        #[must_use]
        pub fn decode_as(def: &str, json: &str, mode: ReadMode) -> Option<Result<Outcome, Error>> {
            Some(match def {
                $(stringify!($name) => run::<$name>(json, mode),)*
                _ => return None,
            })
        }
    };
}

ag_ui_core::for_each_definition!(registry);

pub use ag_ui_core::MIXINS;

/// Decodes an event through a stream decoder that mints `ids` in order (for legacy cases).
/// An event the decoder drops (an unknown type) gives `encoded: null` and its warnings.
///
/// # Errors
/// The decoder's error.
pub fn decode_stream_event(json: &str, mode: ReadMode, ids: &[String]) -> Result<Outcome, Error> {
    let mut queue: std::collections::VecDeque<String> = ids.iter().cloned().collect();
    let mut counter = 0_u32;
    let mut dec = EventDecoder::new(mode).with_id_generator(move || {
        queue.pop_front().unwrap_or_else(|| {
            counter += 1;
            format!("unexpected-minted-id-{counter}")
        })
    });
    let d = dec.decode(json)?;
    let encoded = match d.value {
        Some(event) => ag_ui_core::read::from_str(&to_string(&event)?)?,
        None => Value::Null,
    };
    Ok(Outcome {
        encoded,
        warnings: d
            .warnings
            .iter()
            .map(|w| (w.kind.as_str().to_owned(), w.pointer.clone()))
            .collect(),
    })
}

/// Collects failures and panics with all of them at once.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Failures {
    items: BTreeMap<String, String>,
    /// Number of checks made.
    pub checked: usize,
}

impl Failures {
    /// An empty collector.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one check; `Err` is a failure of case `name`.
    pub fn check(&mut self, name: &str, result: Result<(), String>) {
        self.checked += 1;
        if let Err(e) = result {
            self.items.insert(name.to_owned(), e);
        }
    }

    /// Panics listing every failure, if any.
    ///
    /// # Panics
    /// When a check failed.
    pub fn finish(self, what: &str) {
        if self.items.is_empty() {
            return;
        }
        let mut msg = format!(
            "{} of {} {what} checks failed:\n",
            self.items.len(),
            self.checked
        );
        for (k, v) in &self.items {
            let _ = writeln!(msg, "  {k}: {v}");
        }
        #[expect(clippy::panic, reason = "test support reports failures by panicking")]
        {
            panic!("{msg}");
        }
    }
}
