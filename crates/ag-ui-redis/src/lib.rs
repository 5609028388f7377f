#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod hub;
mod keys;
mod reply;
mod scripts;
mod store;

pub use store::{
    CODE_RUN_ORPHANED, ConnectError, DEFAULT_POLL_INTERVAL, DEFAULT_PREFIX, DEFAULT_READERS,
    DEFAULT_RESPONSE_TIMEOUT, RedisConfig, RedisStore,
};
