//! Reading Redis's replies: values as bytes or text, arrays and maps as items.

use redis::Value;

/// A Redis value as bytes (strings and numbers), `None` for anything else.
pub(crate) fn bytes_of(v: Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.into_bytes()),
        Value::Int(i) => Some(i.to_string().into_bytes()),
        Value::Okay => Some(b"OK".to_vec()),
        _ => None,
    }
}

/// A Redis value as UTF-8 text (strings and numbers), `None` for anything else.
pub(crate) fn string_of(v: Value) -> Option<String> {
    bytes_of(v).and_then(|b| String::from_utf8(b).ok())
}

/// A Redis array's items, or a map's keys and values in turn.
pub(crate) fn items(v: Value) -> Vec<Value> {
    match v {
        Value::Array(a) | Value::Set(a) => a,
        Value::Map(m) => m.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        _ => Vec::new(),
    }
}
