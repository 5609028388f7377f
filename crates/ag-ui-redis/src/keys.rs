//! Key names: every id from the network is percent-encoded before it is part of a key, so
//! that no id can name another run's key, a key of another kind, or a cluster hash slot.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// What an id keeps unescaped: ASCII letters, digits, `-`, `_` and `.`. Everything else
/// (`:`, `{`, `}`, `*`, `%`, spaces, non-ASCII…) is percent-encoded, so the encoding is
/// injective and the result holds neither the key separator nor a hash-tag brace.
const ID: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.');

/// `id`, escaped for a key.
pub(crate) fn escape(id: &str) -> String {
    utf8_percent_encode(id, ID).to_string()
}

/// The keys of one run. The escaped run id is the key's hash tag (`{…}`), so that on a
/// Redis Cluster all of a run's keys share a slot (the scripts touch several at once).
#[derive(Debug, Clone)]
pub(crate) struct RunKeys {
    /// The metadata hash.
    pub(crate) meta: String,
    /// The event stream.
    pub(crate) log: String,
    /// Stop requests (a list the owner pops).
    pub(crate) stop: String,
}

impl RunKeys {
    pub(crate) fn new(prefix: &str, run_id: &str) -> Self {
        let base = format!("{prefix}run:{{{}}}", escape(run_id));
        RunKeys {
            log: format!("{base}:log"),
            stop: format!("{base}:stop"),
            meta: base,
        }
    }
}

/// The keys of one thread (a principal's thread id). The escaped principal and thread id
/// are the hash tag, so a thread's keys share a slot, apart from its runs' keys: the
/// scripts on them touch no run key.
#[derive(Debug, Clone)]
pub(crate) struct ThreadKeys {
    /// The claim: the id of the thread's running run, with a time-to-live renewed with
    /// the run's lease.
    pub(crate) claim: String,
    /// The last sequence number given to a run of the thread.
    pub(crate) seq: String,
    /// The feed: a stream of the runs created, id `0-<seq>`, field `run`.
    pub(crate) feed: String,
}

impl ThreadKeys {
    pub(crate) fn new(prefix: &str, principal: Option<&str>, thread_id: &str) -> Self {
        // `:` never occurs in an escaped id: `a<principal>:<thread>` and `n:<thread>`
        // cannot meet.
        let tag = match principal {
            Some(p) => format!("a{}:{}", escape(p), escape(thread_id)),
            None => format!("n:{}", escape(thread_id)),
        };
        let base = format!("{prefix}thread:{{{tag}}}");
        ThreadKeys {
            seq: format!("{base}:seq"),
            feed: format!("{base}:feed"),
            claim: base,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_cannot_reach_other_keys() {
        assert_eq!(escape("run-1_a.b"), "run-1_a.b");
        assert_eq!(escape("a:b"), "a%3Ab");
        assert_eq!(escape("{x}*?[]"), "%7Bx%7D%2A%3F%5B%5D");
        assert_eq!(escape("%3A"), "%253A");
        assert_eq!(escape("é "), "%C3%A9%20");
        // An id that looks like another run's key suffix stays inside its own tag.
        let k = RunKeys::new("p:", "r}:stop");
        assert_eq!(k.meta, "p:run:{r%7D%3Astop}");
        assert_eq!(k.stop, "p:run:{r%7D%3Astop}:stop");
        assert_ne!(
            RunKeys::new("p:", "a:log").meta,
            RunKeys::new("p:", "a").log
        );
        // Principals and thread ids stay apart.
        let t = ThreadKeys::new("p:", Some("a:b"), "c");
        assert_eq!(t.claim, "p:thread:{aa%3Ab:c}");
        assert_ne!(t.claim, ThreadKeys::new("p:", Some("a"), "b:c").claim);
        assert_ne!(
            ThreadKeys::new("p:", None, "t").claim,
            ThreadKeys::new("p:", Some(""), "t").claim
        );
    }
}
