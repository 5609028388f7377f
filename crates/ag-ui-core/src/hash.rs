//! The hash maps of the stream machinery and the reducer, whose keys (message, tool call
//! and subagent ids) come from the network.
//!
//! They hash with foldhash rather than the standard library's SipHash-1-3: several times
//! faster on short ids, and still seeded at random (per process, and per map), so that a
//! peer cannot choose ids that collide in every client; see `docs/performance.md`.

/// A hash map with a randomly seeded foldhash.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A hash set with a randomly seeded foldhash.
pub(crate) type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// An empty map of `capacity`.
pub(crate) fn map_with_capacity<K, V>(capacity: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, foldhash::fast::RandomState::default())
}
