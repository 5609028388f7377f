//! Integration tests of the loop's parts that need no provider: the module layout, the tool
//! context, and model streams no chat-completions client produces (the whole loop runs
//! through both adapters in `ag_ui_testkit::suite`).
#![allow(clippy::unwrap_used, clippy::panic, unreachable_pub, missing_docs)]

mod context;
mod layout;
mod stream;
