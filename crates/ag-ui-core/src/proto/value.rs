//! `google.protobuf.Struct`, `Value` and `ListValue`, the well-known types AG-UI's wire
//! schema carries open JSON in, declared here by hand with their well-known field numbers, and
//! their mapping to and from [`serde_json::Value`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};

/// `google.protobuf.Value`: one JSON value.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct PValue {
    /// Which JSON type, and the value.
    #[prost(oneof = "Kind", tags = "1, 2, 3, 4, 5, 6")]
    pub(crate) kind: Option<Kind>,
}

/// `google.protobuf.Value.kind`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub(crate) enum Kind {
    /// `null_value` (the enum `NullValue`, whose only value is 0).
    #[prost(int32, tag = "1")]
    Null(i32),
    /// `number_value`.
    #[prost(double, tag = "2")]
    Number(f64),
    /// `string_value`.
    #[prost(string, tag = "3")]
    String(String),
    /// `bool_value`.
    #[prost(bool, tag = "4")]
    Bool(bool),
    /// `struct_value`.
    #[prost(message, tag = "5")]
    Struct(PStruct),
    /// `list_value`.
    #[prost(message, tag = "6")]
    List(PList),
}

/// `google.protobuf.Struct`: a JSON object. Its `map<string, Value> fields = 1` is declared
/// as the repeated entry message it is on the wire, so that entries keep their order.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct PStruct {
    /// The members.
    #[prost(message, repeated, tag = "1")]
    pub(crate) fields: Vec<PEntry>,
}

/// One entry of `Struct.fields`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct PEntry {
    /// The key.
    #[prost(string, tag = "1")]
    pub(crate) key: String,
    /// The value.
    #[prost(message, optional, tag = "2")]
    pub(crate) value: Option<PValue>,
}

/// `google.protobuf.ListValue`: a JSON array.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct PList {
    /// The elements.
    #[prost(message, repeated, tag = "1")]
    pub(crate) values: Vec<PValue>,
}

impl PValue {
    /// The protobuf form of a JSON value (numbers become doubles, as in every encoder).
    pub(crate) fn from_json(v: &Value) -> Self {
        let kind = match v {
            Value::Null => Kind::Null(0),
            Value::Bool(b) => Kind::Bool(*b),
            Value::Number(n) => Kind::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Kind::String(s.clone()),
            Value::Array(a) => Kind::List(PList {
                values: a.iter().map(Self::from_json).collect(),
            }),
            Value::Object(o) => Kind::Struct(PStruct::from_json(o)),
        };
        Self { kind: Some(kind) }
    }

    /// The JSON value; a `Value` with no kind set reads as `null`. A whole double is an
    /// integer again (JSON does not tell `1` from `1.0`); a non-finite one, which JSON cannot
    /// hold, is `null`.
    pub(crate) fn to_json(&self) -> Value {
        match &self.kind {
            None | Some(Kind::Null(_)) => Value::Null,
            Some(Kind::Bool(b)) => Value::Bool(*b),
            Some(Kind::Number(n)) => number(*n),
            Some(Kind::String(s)) => Value::String(s.clone()),
            Some(Kind::List(l)) => Value::Array(l.values.iter().map(Self::to_json).collect()),
            Some(Kind::Struct(s)) => Value::Object(s.to_json()),
        }
    }
}

/// A double as JSON: an integer when it is whole and within ±(2^53 − 1).
fn number(n: f64) -> Value {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if n.fract() == 0.0 && n.abs() <= MAX {
        #[allow(clippy::cast_possible_truncation, reason = "whole and within ±2^53")]
        let i = n as i64;
        return Value::Number(Number::from(i));
    }
    Number::from_f64(n).map_or(Value::Null, Value::Number)
}

impl PStruct {
    /// The protobuf form of a JSON object, entries in the object's order.
    pub(crate) fn from_json(o: &Map<String, Value>) -> Self {
        Self {
            fields: o
                .iter()
                .map(|(k, v)| PEntry {
                    key: k.clone(),
                    value: Some(PValue::from_json(v)),
                })
                .collect(),
        }
    }

    /// The JSON object (a key given twice keeps its last value, as protobuf maps do).
    pub(crate) fn to_json(&self) -> Map<String, Value> {
        self.fields
            .iter()
            .map(|e| {
                (
                    e.key.clone(),
                    e.value.as_ref().map_or(Value::Null, PValue::to_json),
                )
            })
            .collect()
    }
}

impl Serialize for PValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for PValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(|v| Self::from_json(&v))
    }
}

impl Serialize for PStruct {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for PStruct {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Object(o) => Ok(Self::from_json(&o)),
            other => Err(serde::de::Error::custom(format_args!(
                "expected a JSON object for a google.protobuf.Struct, found {other}"
            ))),
        }
    }
}

/// `deserialize_with` of an optional `Value` field: JSON `null` is a `Value` holding null
/// (a meaningful null survives), not an absent field.
pub(crate) fn some_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PValue>, D::Error> {
    PValue::deserialize(d).map(Some)
}
