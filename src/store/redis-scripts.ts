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

/** Compare-and-set by version: {1, new version} on success, {0, current version} otherwise. */
const COMPARE_AND_SET = `${REFUSE_LATE}
local current = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if current ~= tonumber(ARGV[2]) then return {0, current} end
redis.call('HSET', KEYS[1], 'v', current + 1, 'd', ARGV[3], 'u', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1, current + 1}`;

/** SET NX PX: 'OK' when the caller now holds the lock, nil when someone else does. */
const LOCK = `${REFUSE_LATE}
return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3], 'NX')`;

/** DEL: the number of keys removed. */
const DELETE = `${REFUSE_LATE}
return redis.call('DEL', KEYS[1])`;

/**
 * Deletes the lock only while it still holds the caller's token. No deadline: run late, it can only
 * release the caller's own lock, which is what the caller wanted.
 */
const COMPARE_AND_DELETE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export interface RecapScripts {
  recapLoad(recordKey: string, ttlMs: number): Promise<[string, string, string] | null>;
  recapCompareAndSet(recordKey: string, deadline: number, expectedVersion: number, checkpointsJson: string, updatedAt: number, ttlMs: number): Promise<[0 | 1, number]>;
  recapLock(lockKey: string, deadline: number, token: string, ttlMs: number): Promise<'OK' | null>;
  recapDelete(recordKey: string, deadline: number): Promise<number>;
  recapCompareAndDelete(lockKey: string, token: string): Promise<number>;
}

export type ScriptedClient = (Redis | Cluster) & RecapScripts;

export function defineRecapScripts(client: Redis | Cluster): ScriptedClient {
  client.defineCommand('recapLoad', { numberOfKeys: 1, lua: LOAD });
  client.defineCommand('recapCompareAndSet', { numberOfKeys: 1, lua: COMPARE_AND_SET });
  client.defineCommand('recapLock', { numberOfKeys: 1, lua: LOCK });
  client.defineCommand('recapDelete', { numberOfKeys: 1, lua: DELETE });
  client.defineCommand('recapCompareAndDelete', { numberOfKeys: 1, lua: COMPARE_AND_DELETE });
  // defineCommand adds the methods at runtime; this is the one place their types are asserted.
  return client as ScriptedClient;
}
