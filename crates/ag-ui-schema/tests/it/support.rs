//! Shared machinery: the bundle, one compiled validator per definition, error leaves, and
//! the exact-mode reader of `ag-ui-core` as the reference verdict.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use ag_ui_core::{ProtocolVersion, ReadMode};
use jsonschema::Validator;
use jsonschema::error::ValidationErrorKind;
use serde_json::{Value, json};

/// The bundle as the code generates it.
pub(crate) fn bundle() -> &'static Value {
    static B: OnceLock<Value> = OnceLock::new();
    B.get_or_init(|| ag_ui_schema::bundle().unwrap())
}

/// The `$defs` of the bundle.
pub(crate) fn defs() -> &'static serde_json::Map<String, Value> {
    bundle()["$defs"].as_object().unwrap()
}

/// The key under which the root (an `Event`) is validated.
pub(crate) const ROOT: &str = "";

/// A validator of `name` in the 1.0 bundle (addressed by its `$anchor`, as another
/// document would), or of the root for [`ROOT`].
pub(crate) fn validator(name: &str) -> &'static Validator {
    validator_in(ProtocolVersion::V1_0, name)
}

/// A validator of `name` in the bundle of `version`.
pub(crate) fn validator_in(version: ProtocolVersion, name: &str) -> &'static Validator {
    static V: OnceLock<BTreeMap<ProtocolVersion, BTreeMap<String, Validator>>> = OnceLock::new();
    let all = V.get_or_init(|| {
        let mut by_version = BTreeMap::new();
        for version in ag_ui_schema::VERSIONS {
            let bundle = ag_ui_schema::bundle_for(version).unwrap();
            let mut out = BTreeMap::new();
            for n in ag_ui_schema::definitions_for(version).iter().chain([&ROOT]) {
                let mut doc = bundle.clone();
                if !n.is_empty() {
                    doc["$ref"] = json!(format!("#{n}"));
                }
                let v = jsonschema::options()
                    .build(&doc)
                    .unwrap_or_else(|e| panic!("{version} #{n} does not compile: {e}"));
                out.insert((*n).to_owned(), v);
            }
            by_version.insert(version, out);
        }
        by_version
    });
    all.get(&version)
        .and_then(|a| a.get(name))
        .unwrap_or_else(|| panic!("{name} is not a definition of {version}"))
}

/// The published versions whose bundle must give a case its verdict: the version the case
/// names (`fixtures/README.md`, "Versions") and every later one, since each version only
/// adds to the one before.
pub(crate) fn versions_of(case: &ag_ui_fixtures::Case) -> Vec<ProtocolVersion> {
    let needs = ag_ui_fixtures::protocol_of(&case.name);
    ag_ui_schema::VERSIONS
        .into_iter()
        .filter(|v| *v >= needs)
        .collect()
}

/// The definitions listed by a union's `oneOf`.
pub(crate) fn members(union: &str) -> Vec<String> {
    defs()[union]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b["$ref"]
                .as_str()
                .unwrap()
                .trim_start_matches("#/$defs/")
                .to_owned()
        })
        .collect()
}

/// Every union definition (a `oneOf` of references) with its tag: the property every
/// member fixes with `const`.
pub(crate) fn union_tags() -> &'static BTreeMap<String, String> {
    static T: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    T.get_or_init(|| {
        let mut out = BTreeMap::new();
        for (name, def) in defs() {
            let Some(branches) = def.get("oneOf").and_then(Value::as_array) else {
                continue;
            };
            if !branches.iter().all(|b| b.get("$ref").is_some()) {
                continue;
            }
            let ms = members(name);
            let first = &defs()[&ms[0]]["properties"];
            let tag = first
                .as_object()
                .unwrap()
                .iter()
                .find(|(k, _)| {
                    ms.iter()
                        .all(|m| defs()[m]["properties"][k.as_str()].get("const").is_some())
                })
                .map(|(k, _)| k.clone())
                .unwrap_or_else(|| panic!("union {name} has no tag fixed by every member"));
            out.insert(name.clone(), tag);
        }
        out
    })
}

/// The unions `def` is a member of.
pub(crate) fn unions_of(def: &str) -> Vec<String> {
    union_tags()
        .keys()
        .filter(|u| members(u).iter().any(|m| m == def))
        .cloned()
        .collect()
}

/// One failing keyword at one instance location.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Leaf {
    pub(crate) keyword: String,
    pub(crate) pointer: String,
    /// The missing property, for `required`.
    pub(crate) property: Option<String>,
}

impl std::fmt::Display for Leaf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {:?}", self.keyword, self.pointer)?;
        if let Some(p) = &self.property {
            write!(f, " ({p})")?;
        }
        Ok(())
    }
}

/// The errors of validating `doc` as `name` in the bundle of `version`, reduced to their leaves. Inside a tagged union
/// the branches whose tag does not match are dropped (their errors say only "not this
/// member"); when no branch matches, the leaf is the `oneOf` at the union object, which is
/// how JSON Schema reports an unknown tag.
pub(crate) fn leaves_in(version: ProtocolVersion, name: &str, doc: &Value) -> Vec<Leaf> {
    let mut out = Vec::new();
    for e in validator_in(version, name).iter_errors(doc) {
        collect(&e, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

fn collect(e: &jsonschema::ValidationError<'_>, out: &mut Vec<Leaf>) {
    let here = e.instance_path().as_str().to_owned();
    match e.kind() {
        ValidationErrorKind::OneOfNotValid { context } => {
            let union = e
                .schema_path()
                .as_str()
                .strip_prefix("/$defs/")
                .and_then(|s| s.strip_suffix("/oneOf"))
                .filter(|u| !u.contains('/'));
            let tag_at = union
                .and_then(|u| union_tags().get(u))
                .map(|t| format!("{here}/{t}"));
            let matching: Vec<_> = context
                .iter()
                .filter(|branch| {
                    // A branch whose tag is a string of another value is not this member; a
                    // tag of the wrong type fails every branch alike, so all stay.
                    tag_at.as_ref().is_none_or(|at| {
                        let fails = |kw: &str| {
                            branch.iter().any(|c| {
                                c.kind().keyword() == kw && c.instance_path().as_str() == at
                            })
                        };
                        !fails("const") || fails("type")
                    })
                })
                .collect();
            if matching.is_empty() {
                out.push(Leaf {
                    keyword: "oneOf".into(),
                    pointer: here,
                    property: None,
                });
            } else {
                for branch in matching {
                    for c in branch {
                        collect(c, out);
                    }
                }
            }
        }
        ValidationErrorKind::Required { property } => out.push(Leaf {
            keyword: "required".into(),
            pointer: here,
            property: property.as_str().map(str::to_owned),
        }),
        kind => out.push(Leaf {
            keyword: kind.keyword().to_owned(),
            pointer: here,
            property: None,
        }),
    }
}

/// Whether `doc`, read as `def`, is accepted by the exact-mode reader of `ag-ui-core`.
pub(crate) fn exact_accepts(def: &str, doc: &Value) -> bool {
    let text = serde_json::to_string(doc).unwrap();
    ag_ui_fixtures::decode_as(def, &text, ReadMode::Exact)
        .unwrap_or_else(|| panic!("the fixtures loader cannot decode {def}"))
        .is_ok()
}

/// Whether the schema of `version` accepts `doc` as `def`.
pub(crate) fn schema_accepts_in(version: ProtocolVersion, def: &str, doc: &Value) -> bool {
    validator_in(version, def).is_valid(doc)
}

/// Every fixture case.
pub(crate) fn cases() -> &'static [ag_ui_fixtures::Case] {
    static C: OnceLock<Vec<ag_ui_fixtures::Case>> = OnceLock::new();
    C.get_or_init(|| ag_ui_fixtures::load_cases().unwrap())
}

/// Whether `def` is one of the event definitions.
pub(crate) fn is_event(def: &str) -> bool {
    members("Event").iter().any(|m| m == def)
}
