//! Turning wire types into JSON and back: the serde machinery every wire type is built
//! with, the diagnostics of the forgiving and exact readers ([`read`]), the compact JSON
//! writer ([`to_string`](crate::write::to_string), [`to_vec`](crate::write::to_vec)) and the crate's
//! [`Error`](crate::Error).

pub(crate) mod diagnostics;
pub(crate) mod enums;
pub(crate) mod error;
pub(crate) mod event_type;
pub(crate) mod key;
pub(crate) mod locate;
pub(crate) mod parser;
pub(crate) mod pointer;
pub mod read;
pub(crate) mod root;
#[cfg(feature = "schemars")]
pub(crate) mod schema;
pub(crate) mod shown;
pub(crate) mod skip;
pub(crate) mod swar;
pub(crate) mod wire;
pub(crate) mod write;
