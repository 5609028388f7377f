//! The Lua scripts that change several keys of a run at once (each runs atomically on the
//! server). KEYS are always a run's `meta`, `log` and `stop`, in that order.
//!
//! The run's hash holds `status` (`running` or `ended`), `owner` and `beat`, the owner's
//! renewal counter: every decision that ends a run (the owner's last write, a watcher's
//! verdict that the owner is gone) is taken inside one script, against the hash as it
//! stands, so that a run's log never gets a second terminal event.

use std::sync::LazyLock;

use redis::aio::ConnectionLike;
use redis::{Cmd, ErrorKind, FromRedisValue, RedisResult, Script, ServerErrorKind, ToRedisArgs};

/// One of this crate's scripts, called by its SHA1 (`EVALSHA`) and loaded into the server
/// the first time it is missing there.
pub(crate) struct Lua(Script);

impl Lua {
    fn new(code: &str) -> Self {
        Lua(Script::new(code))
    }

    /// A call of the script on `keys`, to which [`Call::arg`] adds the arguments.
    pub(crate) fn call<K: ToRedisArgs>(&'static self, keys: &[K]) -> Call {
        self.call_sized(keys, 0, 0)
    }

    /// [`Lua::call`] with room made at once for `args` more arguments of `bytes` bytes in
    /// all (a batch of events), instead of the command's buffers growing by doubling.
    pub(crate) fn call_sized<K: ToRedisArgs>(
        &'static self,
        keys: &[K],
        args: usize,
        bytes: usize,
    ) -> Call {
        let hash = self.0.get_hash();
        let mut cmd = Cmd::with_capacity(3 + keys.len() + args, 16 + hash.len() + bytes);
        cmd.arg("EVALSHA").arg(hash).arg(keys.len()).arg(keys);
        Call { lua: self, cmd }
    }
}

/// A script's call, its keys and arguments written into one command buffer as they are
/// given (the `redis` crate's own `ScriptInvocation` keeps each argument in an allocation
/// of its own and copies them all into a command when it is sent: for a batch of events,
/// two allocations and two copies per event).
pub(crate) struct Call {
    lua: &'static Lua,
    cmd: Cmd,
}

impl Call {
    /// Adds an argument (`ARGV[n]`).
    pub(crate) fn arg<T: ToRedisArgs>(&mut self, arg: T) -> &mut Self {
        self.cmd.arg(arg);
        self
    }

    /// Sends the call; when the server does not have the script (a restarted or
    /// flushed server), loads it and sends the call again.
    pub(crate) async fn invoke<T: FromRedisValue>(
        &self,
        con: &mut impl ConnectionLike,
    ) -> RedisResult<T> {
        match self.cmd.query_async(con).await {
            Err(e) if e.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                self.lua.0.prepare_invoke().load_async(con).await?;
                self.cmd.query_async(con).await
            }
            r => r,
        }
    }
}

/// Registers a run unless its id is taken. ARGV: owner, key TTL ms, thread id, principal,
/// has principal (`1`/`0`), created ms, the input thread (its fold as JSON; empty: none).
/// Returns 1, or 0 when the id is taken.
pub(crate) static CREATE: LazyLock<Lua> = LazyLock::new(|| {
    Lua::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'thread', ARGV[3], 'owner', ARGV[1], 'status', 'running',
  'created', ARGV[6], 'stop', '0', 'beat', '0', 'last', '0')
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'principal', ARGV[4]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'input', ARGV[7]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
",
    )
});

/// Appends one batch to a running run's log and, when asked, ends the run in the same
/// step. ARGV: end (`1`/`0`), ended ms, retention ms, key TTL ms, the `MINID` to trim to
/// (empty: none), the entry id (`0-<last cursor>`), then each record's cursor and JSON.
/// The run's hash keeps the last cursor appended (`last`), read instead of the log's last
/// entry (a whole batch); a hash without it (a run created before it was kept) falls back
/// to the log. Returns 1; 3 when the entry was appended already (a retried call whose
/// first reply was lost: nothing is appended twice); -1 for an unknown run (its data was
/// lost); -2 when the run has ended (nothing is appended).
pub(crate) static APPEND: LazyLock<Lua> = LazyLock::new(|| {
    Lua::new(
        r"
local meta = redis.call('HMGET', KEYS[1], 'status', 'last')
local status = meta[1]
if not status then return -1 end
if status ~= 'running' then return -2 end
local r = 1
local have = tonumber(meta[2])
if not have then
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
  have = 0
  if #last > 0 then have = tonumber(string.match(last[1][1], '^0%-(%d+)$')) or 0 end
end
local want = tonumber(string.match(ARGV[6], '^0%-(%d+)$')) or 0
if want <= have then
  r = 3
elseif #ARGV > 6 then
  if ARGV[5] ~= '' then
    redis.call('XADD', KEYS[2], 'MINID', '=', ARGV[5], ARGV[6], unpack(ARGV, 7))
  else
    redis.call('XADD', KEYS[2], ARGV[6], unpack(ARGV, 7))
  end
  redis.call('HSET', KEYS[1], 'last', want)
  if redis.call('PTTL', KEYS[2]) < 0 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
end
if ARGV[1] == '1' then
  redis.call('XADD', KEYS[2], '1-0', 'end', '1')
  redis.call('HSET', KEYS[1], 'status', 'ended', 'ended', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
end
return r
",
    )
});

/// Ends a running run whose owner is gone: only while the run is running and its renewal
/// counter still reads what the watcher saw standing still for a lease. Appends the given
/// `RUN_ERROR` JSON at the next cursor, then the end entry; when the log's last event is
/// a terminal event already (an owner that died between its last write and its end), it
/// only closes the log. ARGV: the counter seen, ended ms, retention ms, the event's JSON.
/// Returns 1 when it appended the event, 2 when it only closed the log, 0 when the run is
/// not orphaned (ended, renewed meanwhile, or unknown).
pub(crate) static ORPHAN: LazyLock<Lua> = LazyLock::new(|| {
    Lua::new(
        r#"
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
if redis.call('HGET', KEYS[1], 'beat') ~= ARGV[1] then return 0 end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local n = 0
local terminal = false
if #last > 0 then
  n = tonumber(string.match(last[1][1], '^0%-(%d+)$')) or 0
  local fields = last[1][2]
  local json = fields[#fields] or ''
  terminal = string.sub(json, 1, 22) == '{"type":"RUN_FINISHED"'
    or string.sub(json, 1, 19) == '{"type":"RUN_ERROR"'
end
local r = 2
if not terminal then
  redis.call('XADD', KEYS[2], '0-' .. (n + 1), tostring(n + 1), ARGV[4])
  r = 1
end
redis.call('XADD', KEYS[2], '1-0', 'end', '1')
redis.call('HSET', KEYS[1], 'status', 'ended', 'ended', ARGV[2], 'orphaned', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return r
"#,
    )
});

/// The owner's renewal: counts one more beat on its running run and renews its keys'
/// time-to-live. ARGV: owner, key TTL ms. Returns 1; 0 for an unknown run (its data was
/// lost); 2 when the run has ended; 3 when it is another owner's.
pub(crate) static RENEW: LazyLock<Lua> = LazyLock::new(|| {
    Lua::new(
        r"
local meta = redis.call('HMGET', KEYS[1], 'status', 'owner')
if not meta[1] then return 0 end
if meta[1] ~= 'running' then return 2 end
if meta[2] ~= ARGV[1] then return 3 end
redis.call('HINCRBY', KEYS[1], 'beat', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return 1
",
    )
});

/// Records a stop request and, for a running run, pushes a token its owner pops. ARGV:
/// key TTL ms. Returns 1 (running), 0 (ended), -1 (unknown).
pub(crate) static STOP: LazyLock<Lua> = LazyLock::new(|| {
    Lua::new(
        r"
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return -1 end
redis.call('HSET', KEYS[1], 'stop', '1')
if status ~= 'running' then return 0 end
redis.call('RPUSH', KEYS[3], '1')
redis.call('PEXPIRE', KEYS[3], ARGV[1])
return 1
",
    )
});

/// Claims a thread for a run just created and adds the run to the thread's feed, unless
/// another run holds the claim. KEYS: the thread's `claim`, `seq` and `feed`. ARGV: run id,
/// claim TTL ms, feed length, feed TTL ms. Returns `{1, seq}`, or `{0, the holder's id}`.
pub(crate) static CLAIM: LazyLock<Lua> = LazyLock::new(|| {
    Lua::new(
        r"
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {0, holder} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '0-' .. seq, 'run', ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return {1, tostring(seq)}
",
    )
});

/// Renews a thread's claim while `run` holds it. KEYS: the claim. ARGV: run id, TTL ms.
/// Returns 1, or 0 when the claim is not the run's.
pub(crate) static RENEW_CLAIM: LazyLock<Lua> = LazyLock::new(|| {
    Lua::new(
        r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
",
    )
});

/// Releases a thread's claim held by `run` (and nobody else's). KEYS: the claim. ARGV:
/// run id. Returns 1 when it was released, 0 when the claim was not the run's.
pub(crate) static RELEASE: LazyLock<Lua> = LazyLock::new(|| {
    Lua::new(
        r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
",
    )
});
