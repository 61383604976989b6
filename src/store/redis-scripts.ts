import type { Cluster, Redis } from 'ioredis';

// Lua scripts of the Redis store. Each touches one key, declared in KEYS so a cluster routes it by
// that key's hash tag. defineCommand sends EVALSHA and falls back to EVAL when the server lacks the
// script (after a restart or failover).

/**
 * Write scripts take a deadline in Redis's clock (µs, write-deadline.ts) as ARGV[1] and fail with
 * LATE instead of writing once it has passed: their caller no longer waits for them.
 */
const REFUSE_LATE = `
local now = redis.call('TIME')
if tonumber(now[1]) * 1000000 + tonumber(now[2]) > tonumber(ARGV[1]) then
  return redis.error_reply('LATE write arrived after its deadline')
end`;

/** Returns [version, checkpoints JSON, updatedAt] or nil; a hit refreshes the TTL (PEXPIRE). */
const LOAD = `
local r = redis.call('HMGET', KEYS[1], 'v', 'd', 'u')
if not r[1] then return nil end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return r`;

/** Returns the version, 0 when there is no record; a hit refreshes the TTL (PEXPIRE), as LOAD's does. */
const LOAD_VERSION = `
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return tonumber(v)`;

/** Compare-and-set by version: {1, new version} on success, {0, current version} otherwise. */
const COMPARE_AND_SET = `${REFUSE_LATE}
local current = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if current ~= tonumber(ARGV[2]) then return {0, current} end
redis.call('HSET', KEYS[1], 'v', current + 1, 'd', ARGV[3], 'u', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1, current + 1}`;

/**
 * Takes one lock of a conversation's lock table (a hash: `h:<id>` one lock as
 * `token|expiresAt ms|prefix|link`, expiry in Redis's clock) unless lock ARGV[2] is held. Returns
 * {1 taken or 0 refused, then name and value of every other live lock}: what was held at that
 * moment. Expired locks are dropped on the way.
 */
const LOCK = `${REFUSE_LATE}
local nowMs = math.floor((tonumber(now[1]) * 1000000 + tonumber(now[2])) / 1000)
local field = 'h:' .. ARGV[2]
local fields = redis.call('HGETALL', KEYS[1])
local held = {}
local taken = 1
for i = 1, #fields, 2 do
  local name, value = fields[i], fields[i + 1]
  if string.sub(name, 1, 2) == 'h:' then
    local expires = tonumber(string.match(value, '^[^|]*|([^|]*)'))
    if expires == nil or expires <= nowMs then
      redis.call('HDEL', KEYS[1], name)
    else
      if name == field then taken = 0 end
      held[#held + 1] = name
      held[#held + 1] = value
    end
  end
end
if taken == 1 then
  local ttl = tonumber(ARGV[4])
  redis.call('HSET', KEYS[1], field, ARGV[3] .. '|' .. (nowMs + ttl) .. '|' .. ARGV[5] .. '|' .. ARGV[6])
  if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
end
table.insert(held, 1, taken)
return held`;

/** DEL: the number of keys removed. */
const DELETE = `${REFUSE_LATE}
return redis.call('DEL', KEYS[1])`;

/**
 * Releases lock ARGV[1] only while it still holds the caller's token ARGV[2]. No deadline: run late,
 * it can only release the caller's own lock, which is what the caller wanted.
 */
const UNLOCK = `
local field = 'h:' .. ARGV[1]
local value = redis.call('HGET', KEYS[1], field)
if not value or string.match(value, '^[^|]*') ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], field)
return 1`;

/**
 * Extends lock ARGV[1] to ARGV[3] ms from now while it still holds the caller's token ARGV[2] and
 * has not expired: 1, else 0. No deadline: run late, it extends the caller's own lock by one lease
 * at most, as a renewal in time would have.
 */
const RENEW = `
local field = 'h:' .. ARGV[1]
local value = redis.call('HGET', KEYS[1], field)
if not value then return 0 end
local token, expires, rest = string.match(value, '^([^|]*)|([^|]*)|(.*)$')
local now = redis.call('TIME')
local nowMs = math.floor((tonumber(now[1]) * 1000000 + tonumber(now[2])) / 1000)
if token ~= ARGV[2] or tonumber(expires) == nil or tonumber(expires) <= nowMs then return 0 end
local ttl = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], field, token .. '|' .. (nowMs + ttl) .. '|' .. rest)
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`;

/**
 * Adds ARGV[2] to the spend count KEYS[1] (expiring ARGV[4] ms from now) only while it is below
 * ARGV[3]: the new total, or -1 when it had reached it. One script, so replicas reserving at once
 * cannot all pass the check before any of them added.
 */
const RESERVE_SPEND = `${REFUSE_LATE}
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[3])
-- Within the limit, or the window's first call (one call bigger than the whole allowance).
if spent >= limit or (spent > 0 and spent + tonumber(ARGV[2]) > limit) then return -1 end
local total = redis.call('INCRBY', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return total`;

export interface RecapScripts {
  recapLoad(recordKey: string, ttlMs: number): Promise<[string, string, string] | null>;
  recapLoadVersion(recordKey: string, ttlMs: number): Promise<number>;
  recapCompareAndSet(recordKey: string, deadline: number, expectedVersion: number, checkpointsJson: string, updatedAt: number, ttlMs: number): Promise<[0 | 1, number]>;
  recapLock(locksKey: string, deadline: number, id: string, token: string, ttlMs: number, prefix: number, link: string): Promise<[0 | 1, ...string[]]>;
  recapDelete(recordKey: string, deadline: number): Promise<number>;
  recapUnlock(locksKey: string, id: string, token: string): Promise<number>;
  recapRenew(locksKey: string, id: string, token: string, ttlMs: number): Promise<number>;
  recapReserveSpend(spendKey: string, deadline: number, tokens: number, limit: number, ttlMs: number): Promise<number>;
}

export type ScriptedClient = (Redis | Cluster) & RecapScripts;

export function defineRecapScripts(client: Redis | Cluster): ScriptedClient {
  client.defineCommand('recapLoad', { numberOfKeys: 1, lua: LOAD });
  client.defineCommand('recapLoadVersion', { numberOfKeys: 1, lua: LOAD_VERSION });
  client.defineCommand('recapCompareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET });
  client.defineCommand('recapLock', { numberOfKeys: 1, lua: LOCK });
  client.defineCommand('recapDelete', { numberOfKeys: 1, lua: DELETE });
  client.defineCommand('recapUnlock', { numberOfKeys: 1, lua: UNLOCK });
  client.defineCommand('recapRenew', { numberOfKeys: 1, lua: RENEW });
  client.defineCommand('recapReserveSpend', { numberOfKeys: 1, lua: RESERVE_SPEND });
  // defineCommand adds the methods at runtime; this is the one place their types are asserted.
  return client as ScriptedClient;
}
