//! Finding a member in JSON text by its pointer, for errors whose position the parser
//! could not give: those about members read before a late tag, which are buffered and
//! checked only once the tag is known (when the parser is already past them). And
//! removing a member from JSON text in place, for the forgiving reader's removal of
//! unknown union members.

use crate::codec::pointer::unescape_token;

/// Line and column (1-based, in bytes, as serde_json counts them) of the last byte of the
/// value at `pointer` in `text` (of the last such member when a key repeats), if the text
/// up to it is well-formed. Iterative: no recursion, whatever the depth.
pub(crate) fn locate(text: &[u8], pointer: &str) -> Option<(usize, usize)> {
    let mut pos = skip_ws(text, 0);
    if !pointer.is_empty() {
        for token in pointer.strip_prefix('/')?.split('/') {
            pos = child(text, pos, &unescape_token(token))?;
        }
    }
    let end = skip_value(text, pos)?;
    let last = end.checked_sub(1)?;
    let line_start = text[..last]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + text[..last].iter().filter(|b| **b == b'\n').count();
    Some((line, last - line_start + 1))
}

/// Removes the member at `pointer` from well-formed JSON text in place: its bytes (with
/// the key, for an object member) and one comma next to it become spaces, line ends are
/// kept, so every other byte keeps its line and column. The member is found through the
/// first occurrence of each key, the one a reader meets first. When the member's own key
/// is repeated in its object, its value becomes `null` instead (padded with spaces), so
/// that a reader still meets the key twice. Returns whether the member was found.
pub(crate) fn remove(text: &mut [u8], pointer: &str) -> bool {
    remove_member(text, pointer).is_some()
}

fn remove_member(text: &mut [u8], pointer: &str) -> Option<()> {
    let tokens: Vec<String> = pointer
        .strip_prefix('/')?
        .split('/')
        .map(unescape_token)
        .collect();
    let (last, path) = tokens.split_last()?;
    let mut pos = skip_ws(text, 0);
    for token in path {
        pos = member(text, pos, token)?.value;
    }
    let m = member(text, pos, last)?;
    if m.repeated {
        let value = text.get_mut(m.value..m.end)?;
        if value.len() < 4 {
            return None;
        }
        value[..4].copy_from_slice(b"null");
        blank(&mut value[4..]);
        return Some(());
    }
    blank(text.get_mut(m.start..m.end)?);
    let after = skip_ws(text, m.end);
    if text.get(after) == Some(&b',') {
        text[after] = b' ';
    } else if let Some(before) = text[..m.start]
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        && text[before] == b','
    {
        text[before] = b' ';
    }
    Some(())
}

/// Overwrites bytes with spaces, keeping line ends.
fn blank(bytes: &mut [u8]) {
    for b in bytes {
        if !matches!(b, b'\n' | b'\r') {
            *b = b' ';
        }
    }
}

/// A member of an array or object in JSON text.
struct Member {
    /// Where it starts: its key for an object member.
    start: usize,
    /// Where its value starts.
    value: usize,
    /// Where its value ends (exclusive).
    end: usize,
    /// Whether its key appears more than once in its object.
    repeated: bool,
}

/// The first member `token` of the array or object starting at `pos`.
fn member(text: &[u8], pos: usize, token: &str) -> Option<Member> {
    match text.get(pos)? {
        b'[' => {
            let value = child(text, pos, token)?;
            Some(Member {
                start: value,
                value,
                end: skip_value(text, value)?,
                repeated: false,
            })
        }
        b'{' => {
            let entries = object_entries(text, pos)?;
            let mut same = entries.into_iter().filter(|e| e.key == token);
            let first = same.next()?;
            Some(Member {
                start: first.start,
                value: first.value,
                end: first.end,
                repeated: same.next().is_some(),
            })
        }
        _ => None,
    }
}

/// One member of an object in JSON text: its key, where the member starts (its key) and
/// where its value starts and ends (exclusive).
struct Entry {
    key: String,
    start: usize,
    value: usize,
    end: usize,
}

/// The members of the object starting at `pos`, in text order (repeated keys included), as
/// far as the text is well-formed.
fn object_entries(text: &[u8], pos: usize) -> Option<Vec<Entry>> {
    let mut entries = Vec::new();
    let mut at = skip_ws(text, pos + 1);
    while text.get(at)? == &b'"' {
        let start = at;
        let key_end = skip_value(text, at)?;
        let key: String = serde_json::from_slice(&text[at..key_end]).ok()?;
        at = skip_ws(text, key_end);
        if text.get(at)? != &b':' {
            return None;
        }
        let value = skip_ws(text, at + 1);
        let end = skip_value(text, value)?;
        entries.push(Entry {
            key,
            start,
            value,
            end,
        });
        at = skip_ws(text, end);
        match text.get(at) {
            Some(b',') => at = skip_ws(text, at + 1),
            _ => break,
        }
    }
    Some(entries)
}

/// The start of member `token` of the array or object starting at `pos`.
fn child(text: &[u8], pos: usize, token: &str) -> Option<usize> {
    match text.get(pos)? {
        b'[' => {
            let wanted: usize = token.parse().ok()?;
            let mut at = skip_ws(text, pos + 1);
            for _ in 0..wanted {
                at = skip_ws(text, skip_value(text, at)?);
                if text.get(at)? != &b',' {
                    return None;
                }
                at = skip_ws(text, at + 1);
            }
            (text.get(at)? != &b']').then_some(at)
        }
        b'{' => object_entries(text, pos)?
            .into_iter()
            .rfind(|e| e.key == token)
            .map(|e| e.value),
        _ => None,
    }
}

fn skip_ws(text: &[u8], mut pos: usize) -> usize {
    while matches!(text.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

/// The end (exclusive) of the value starting at `pos`.
fn skip_value(text: &[u8], pos: usize) -> Option<usize> {
    let mut depth = 0_usize;
    let mut at = pos;
    loop {
        match text.get(at)? {
            b'"' => {
                at += 1;
                loop {
                    match text.get(at)? {
                        b'\\' => at += 2,
                        b'"' => break,
                        _ => at += 1,
                    }
                }
                at += 1;
            }
            b'[' | b'{' => {
                depth += 1;
                at += 1;
            }
            b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                at += 1;
            }
            b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' if depth > 0 => at += 1,
            _ if depth > 0 => at += 1,
            _ => {
                // A number or a literal.
                while !matches!(
                    text.get(at),
                    None | Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    at += 1;
                }
                return Some(at);
            }
        }
        if depth == 0 {
            return Some(at);
        }
    }
}

/// Parses well-formed JSON text into a value in which a repeated key keeps its **first**
/// value (the one a reader meets first, and the one [`remove`] finds), unlike
/// `serde_json::Value`, which keeps the last. `None` if the text is not JSON.
pub(crate) fn first_wins(text: &[u8]) -> Option<serde_json::Value> {
    let mut de = serde_json::Deserializer::from_slice(text);
    let value = serde::Deserialize::deserialize(&mut de)
        .map(|FirstWins(v)| v)
        .ok()?;
    de.end().ok()?;
    Some(value)
}

/// A JSON value whose objects keep the first of repeated keys.
struct FirstWins(serde_json::Value);

impl<'de> serde::Deserialize<'de> for FirstWins {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FirstWinsVisitor)
    }
}

struct FirstWinsVisitor;

impl<'de> serde::de::Visitor<'de> for FirstWinsVisitor {
    type Value = FirstWins;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<FirstWins, E> {
        Ok(FirstWins(v.into()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<FirstWins, E> {
        Ok(FirstWins(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<FirstWins, E> {
        Ok(FirstWins(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<FirstWins, E> {
        Ok(FirstWins(
            serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into),
        ))
    }
    fn visit_str<E>(self, v: &str) -> Result<FirstWins, E> {
        Ok(FirstWins(v.into()))
    }
    fn visit_string<E>(self, v: String) -> Result<FirstWins, E> {
        Ok(FirstWins(v.into()))
    }
    fn visit_unit<E>(self) -> Result<FirstWins, E> {
        Ok(FirstWins(serde_json::Value::Null))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<FirstWins, A::Error> {
        let mut items = Vec::new();
        while let Some(FirstWins(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(FirstWins(serde_json::Value::Array(items)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<FirstWins, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some((key, FirstWins(v))) = map.next_entry::<String, FirstWins>()? {
            object.entry(key).or_insert(v);
        }
        Ok(FirstWins(serde_json::Value::Object(object)))
    }
}
