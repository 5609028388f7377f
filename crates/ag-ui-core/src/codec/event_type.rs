//! [`EventType`]: the `type` values of the event table.
//!
//! Declared here, below the rest of the codec, because the codec's errors and warnings name
//! event types; its reading and writing impls are in `codec::wire`, and what else the table
//! says of a type (its struct, area, first protocol version, attribution) is added by
//! `model::event`.

use crate::codec::enums::closed_enum;

/// Declares [`EventType`] from the event table ([`crate::for_each_event!`]).
macro_rules! declare_event_type {
    ([] $($variant:ident($ty:ident) = $wire:literal in $area:ident since $since:ident [$attr:ident, $boxing:ident, $naming:ident],)*) => {
        closed_enum! {
            /// `EventType`: every `type` value of AG-UI, in the protocol's declaration order.
            #[cfg_attr(feature = "schemars", schemars(transform = event_type_description))]
            pub enum EventType {
                $(
                    #[doc = concat!("`", $wire, "`.")]
                    $variant = $wire,
                )*
            }
        }
    };
}

crate::for_each_event!(declare_event_type);

/// The schema's description of `EventType`, with the number of event types the table holds.
#[cfg(feature = "schemars")]
fn event_type_description(schema: &mut schemars::Schema) {
    schema.insert(
        "description".to_owned(),
        format!(
            "`EventType`: the {} `type` values of AG-UI 1.0, in the protocol's declaration order.",
            EventType::ALL.len()
        )
        .into(),
    );
}
