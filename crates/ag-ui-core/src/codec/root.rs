//! The document root as the readers see it: when the root is an array read through
//! serde's own impls (`Vec<Event>`, `Vec<Message>`, …), errors and warnings inside an
//! element get the element's index in front of their pointer, as they do for arrays inside
//! AG-UI objects (whose reader, like that of a root `JsonPatch`, indexes them itself).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

use crate::codec::diagnostics;
use crate::codec::key::at;

/// Wraps the deserializer of a whole document.
pub(crate) struct Root<D>(pub(crate) D);

/// Forwards `deserialize_*` methods to the inner deserializer with the visitor wrapped.
macro_rules! forward_deserialize {
    ($($method:ident ( $($arg:ident : $ty:ty),* );)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method($($arg,)* RootVisitor(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Root<D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// The root value's visitor: passes everything through, but an array's elements are
/// read with their index in pointers.
struct RootVisitor<V>(V);

/// Forwards `visit_*` methods of plain values.
macro_rules! forward_visit {
    ($($method:ident ( $ty:ty );)*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for RootVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    forward_visit! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_i128(i128);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_u128(u128);
        visit_f32(f32);
        visit_f64(f64);
        visit_char(char);
        visit_str(&str);
        visit_borrowed_str(&'de str);
        visit_string(String);
        visit_bytes(&[u8]);
        visit_borrowed_bytes(&'de [u8]);
        visit_byte_buf(Vec<u8>);
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_none()
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_unit()
    }
    fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
        self.0.visit_some(d)
    }
    fn visit_newtype_struct<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
        self.0.visit_newtype_struct(d)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(map)
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.0.visit_enum(data)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        diagnostics::root_seq_opened();
        self.0.visit_seq(Indexed {
            seq,
            index: 0,
            track: diagnostics::collecting(),
        })
    }
}

/// The root array: each element's errors and warnings carry its index.
struct Indexed<A> {
    seq: A,
    index: usize,
    track: bool,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Indexed<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        if !diagnostics::root_seq_unclaimed() {
            // The array's reader is one of this crate's: it indexes its elements itself.
            return self.seq.next_element_seed(seed);
        }
        let index = self.index;
        self.index += 1;
        let mark = if self.track { diagnostics::mark() } else { 0 };
        let r = self.seq.next_element_seed(seed);
        if self.track {
            diagnostics::prefix_since(mark, &index);
        }
        r.map_err(|e| at(e, &index))
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}
