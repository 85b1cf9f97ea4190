//! Reading only the fields railyard needs, straight from the JSON token stream.
//!
//! LLDP captures are read with serde visitors instead of a `serde_json::Value` tree: a value
//! railyard does not read is skipped as it streams past (`IgnoredAny`), and what is kept is the
//! neighbour list, so memory follows the neighbours found, not the size of the file (a `Value`
//! tree of lldpd output weighs about thirty times the text).
//!
//! Every shape here is lenient the way the tree-walking parser was: a value of another JSON type
//! than expected is not an error, it just holds nothing ([`Shape`]'s defaults). Only broken JSON
//! (and serde_json's nesting limit of 128) is an error.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A JSON value read leniently: an object, an array or a string is read by the methods, any other
/// value (and any shape a method does not read) is `Default`.
pub(super) trait Shape<'de>: Default + Sized {
    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        skip_object(map)?;
        Ok(Self::default())
    }
    fn array<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error> {
        skip_array(seq)?;
        Ok(Self::default())
    }
    fn text(_: &str) -> Self {
        Self::default()
    }
}

/// A [`Shape`] as a deserializable value: `map.next_value::<Lenient<Leaf>>()`.
pub(super) struct Lenient<T>(pub T);

impl<'de, T: Shape<'de>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ShapeVisitor(PhantomData)).map(Lenient)
    }
}

struct ShapeVisitor<T>(PhantomData<T>);

impl<'de, T: Shape<'de>> Visitor<'de> for ShapeVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::object(map)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::array(seq)
    }
    fn visit_str<E>(self, s: &str) -> Result<T, E> {
        Ok(T::text(s))
    }
    fn visit_bool<E>(self, _: bool) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<T, E> {
        Ok(T::default())
    }
    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::default())
    }
}

/// The value of the current key of `map`, read as `T`.
pub(super) fn value<'de, T: Shape<'de>, A: MapAccess<'de>>(map: &mut A) -> Result<T, A::Error> {
    Ok(map.next_value::<Lenient<T>>()?.0)
}

pub(super) fn skip_object<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

pub(super) fn skip_array<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

pub(super) fn non_empty(s: &str) -> Option<String> {
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// A leaf that json0 wraps as `[{"value": X}]` and plain json writes as `X`: the first non-empty
/// string found through arrays and `value` members, trimmed.
#[derive(Default)]
pub(super) struct Leaf(pub Option<String>);

impl<'de> Shape<'de> for Leaf {
    fn object<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "value" {
                found = value::<Leaf, _>(&mut map)?.0;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Leaf(found))
    }
    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut found = None;
        while let Some(Lenient(Leaf(x))) = seq.next_element::<Lenient<Leaf>>()? {
            found = found.or(x);
        }
        Ok(Leaf(found))
    }
    fn text(s: &str) -> Self {
        Leaf(non_empty(s))
    }
}

/// The elements of a value that lldpd writes as an array in json0 and as the element itself when
/// plain json holds one: an array's elements, or the value as one element (none for `null`).
pub(super) struct Items<T>(pub Vec<T>);

impl<T> Default for Items<T> {
    fn default() -> Self {
        Items(Vec::new())
    }
}

impl<'de, T: Shape<'de>> Shape<'de> for Items<T> {
    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        Ok(Items(vec![T::object(map)?]))
    }
    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut all = Vec::new();
        while let Some(Lenient(x)) = seq.next_element::<Lenient<T>>()? {
            all.push(x);
        }
        Ok(Items(all))
    }
    fn text(s: &str) -> Self {
        Items(vec![T::text(s)])
    }
}

/// The first element of [`Items`] (the rest is skipped unread); `Some` whenever there is one,
/// like `items(v).first()`.
pub(super) struct First<T>(pub Option<T>);

impl<T> Default for First<T> {
    fn default() -> Self {
        First(None)
    }
}

impl<'de, T: Shape<'de>> Shape<'de> for First<T> {
    fn object<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        Ok(First(Some(T::object(map)?)))
    }
    fn array<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let first = seq.next_element::<Lenient<T>>()?.map(|l| l.0);
        skip_array(seq)?;
        Ok(First(first))
    }
    fn text(s: &str) -> Self {
        First(Some(T::text(s)))
    }
}
