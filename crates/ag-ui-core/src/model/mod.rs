//! The wire types of AG-UI 1.0, one module per protocol area: every event ([`event`]),
//! message, content part, tool, interrupt, outcome, patch and capability the protocol
//! defines. Each type's serde impls are its wire form (see [`crate::codec`]).

pub mod event;

pub(crate) mod capabilities;
pub(crate) mod content;
pub(crate) mod definitions;
pub(crate) mod id;
pub(crate) mod input;
pub(crate) mod interrupt;
pub(crate) mod message;
pub(crate) mod metadata;
pub(crate) mod outcome;
pub(crate) mod patch;
pub(crate) mod patch_apply;
pub(crate) mod tool;
pub(crate) mod usage;
pub(crate) mod version;
