//! The Lua scripts that change several keys of a run at once (each runs atomically on the
//! server). KEYS are always a run's `meta`, `log`, `lease` and `stop`, in that order.

use std::sync::LazyLock;

use redis::Script;

/// Registers a run unless its id is taken. ARGV: owner, lease ms, key TTL ms, thread id,
/// principal, has principal (`1`/`0`), created ms. Returns 1, or 0 when the id is taken.
pub(crate) static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[4])
redis.call('HSET', KEYS[1], 'thread', ARGV[4], 'owner', ARGV[1], 'status', 'running',
  'created', ARGV[7], 'stop', '0')
if ARGV[6] == '1' then redis.call('HSET', KEYS[1], 'principal', ARGV[5]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
return 1
",
    )
});

/// Marks a run ended: the end entry (`1-0`, after every event's `0-<cursor>`) closes its
/// log, the lease goes, every key gets the retention TTL. ARGV: ended ms, retention ms.
/// Returns 1, 2 when it had ended already, 0 for an unknown run.
pub(crate) static END: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status == 'ended' then return 2 end
redis.call('XADD', KEYS[2], '1-0', 'end', '1')
redis.call('HSET', KEYS[1], 'status', 'ended', 'ended', ARGV[1])
redis.call('DEL', KEYS[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[4], ARGV[2])
return 1
",
    )
});

/// Ends a running run whose owner's lease lapsed: appends the given `RUN_ERROR` JSON at
/// the next cursor, then the end entry, as [`END`] does. ARGV: ended ms, retention ms, the
/// event's JSON. Returns 1 when it ended the run, 0 when the run is not orphaned (ended,
/// unknown, or its lease is held).
pub(crate) static ORPHAN: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local n = 0
if #last > 0 then
  n = tonumber(string.match(last[1][1], '^0%-(%d+)$')) or 0
end
redis.call('XADD', KEYS[2], '0-' .. (n + 1), tostring(n + 1), ARGV[3])
redis.call('XADD', KEYS[2], '1-0', 'end', '1')
redis.call('HSET', KEYS[1], 'status', 'ended', 'ended', ARGV[1], 'orphaned', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[4], ARGV[2])
return 1
",
    )
});

/// Renews the owner's lease if it still holds it, and the TTL of the run's keys. ARGV:
/// owner, lease ms, key TTL ms. Returns 1, or 0 when the lease is not the owner's.
pub(crate) static RENEW: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
",
    )
});

/// Records a stop request and, for a running run, pushes a token its owner pops. ARGV:
/// key TTL ms. Returns 1 (running), 0 (ended), -1 (unknown), 2 (running, but its owner's
/// lease has lapsed: nobody would pop the token).
pub(crate) static STOP: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return -1 end
redis.call('HSET', KEYS[1], 'stop', '1')
if status ~= 'running' then return 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then return 2 end
redis.call('RPUSH', KEYS[4], '1')
redis.call('PEXPIRE', KEYS[4], ARGV[1])
return 1
",
    )
});
