//! The declaration part of a closed string enumeration: the enum, its lists of values and
//! wire strings, `Display` and `Serialize`. It names nothing else of the crate, so that
//! [`EventType`](crate::EventType), which the codec's own errors name, can be declared below
//! them; [`wire_enum!`](crate::codec::wire) adds the reading, writing and schema impls.

/// Declares a closed string enumeration's type (see the module's documentation). The schema
/// derive expects an inherent `__wire_schema` function, which the codec's impls provide.
macro_rules! closed_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $wire:literal
            ),* $(,)?
        }
    ) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
        #[cfg_attr(feature = "schemars", schemars(transform = $name::__wire_schema))]
        // After the derive, so that the declaration may add `schemars` attributes.
        $(#[$meta])*
        pub enum $name {
            $(
                $(#[$vmeta])*
                #[cfg_attr(feature = "schemars", schemars(rename = $wire))]
                $variant,
            )*
        }

        impl $name {
            /// Every value, in the protocol's declaration order.
            pub const ALL: &'static [$name] = &[$(Self::$variant),*];
            /// Every wire string, in the protocol's declaration order.
            pub const WIRE_NAMES: &'static [&'static str] = &[$($wire),*];

            /// The wire string.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( Self::$variant => $wire, )*
                }
            }

            /// Parses a wire string (exact, case-sensitive).
            #[must_use]
            pub fn from_wire(s: &str) -> Option<Self> {
                match s {
                    $( $wire => Some(Self::$variant), )*
                    _ => None,
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}
pub(crate) use closed_enum;
