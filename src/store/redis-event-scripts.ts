import type { Cluster, Redis } from 'ioredis';

// Lua scripts of the Redis event log. Each one's keys share one hash tag (the conversation's, the
// tenant's, or `{*}` for all tenants), so a cluster runs it on one node without CROSSSLOT. Event
// writes carry no deadline (write-deadline.ts): an event or a count that lands late is still right.

/** Index members one call drops at most: a tenant's bounds are kept by a little work on every write. */
const EVICT_STEPS = 64;

/**
 * Appends an event to the conversation's stream (bounded by MAXLEN) and adds it to its entry (a
 * hash); both keep the record's TTL. KEYS: stream, entry. ARGV: event JSON, max events, TTL ms,
 * client id ('' for none), route, model, action, audit, at, tokens in, out, saved, projected saved,
 * recalls.
 */
const APPEND = `
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[2], '*', 'e', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'id', ARGV[4]) end
redis.call('HSETNX', KEYS[2], 'first', ARGV[9])
redis.call('HSET', KEYS[2], 'route', ARGV[5], 'model', ARGV[6], 'action', ARGV[7], 'audit', ARGV[8], 'last', ARGV[9])
redis.call('HINCRBY', KEYS[2], 'requests', 1)
redis.call('HINCRBY', KEYS[2], 'in', ARGV[10])
redis.call('HINCRBY', KEYS[2], 'out', ARGV[11])
redis.call('HINCRBY', KEYS[2], 'saved', ARGV[12])
redis.call('HINCRBY', KEYS[2], 'projected', ARGV[13])
redis.call('HINCRBY', KEYS[2], 'recalls', ARGV[14])
redis.call('PEXPIRE', KEYS[2], ARGV[3])`;

/**
 * Puts a conversation first in an index (a sorted set by last seen, bounded in age, and a tenant's
 * also in size) and adds counts to a minute and an hour bucket. A tenant's index keeps, in a hash
 * beside it, how many events each conversation holds (at most the per-conversation bound) and their
 * total under '*' (no conversation tag is '*'); past the bound on conversations or on events, its
 * least recently written conversations leave the index and are returned, for the caller to delete
 * their events and entry. The work per call is bounded (EVICT_STEPS).
 * KEYS: index, minute bucket, hour bucket, event counts hash. ARGV: member ('' to touch no index),
 * at, TTL ms, max conversations (0: none), minute bucket TTL, hour bucket TTL, events per
 * conversation, events per tenant (0: not counted), then name/increment pairs.
 */
const INDEX_AND_COUNT = `
local at = tonumber(ARGV[2])
local evicted = {}
if ARGV[1] ~= '' then
  local member, ttl = ARGV[1], tonumber(ARGV[3])
  local maxConversations, perConversation, maxEvents = tonumber(ARGV[4]), tonumber(ARGV[7]), tonumber(ARGV[8])
  redis.call('ZADD', KEYS[1], at, member)
  local counted = maxEvents > 0
  local total = 0
  if counted then
    local n = redis.call('HINCRBY', KEYS[4], member, 1)
    if n > perConversation then redis.call('HSET', KEYS[4], member, perConversation) else redis.call('HINCRBY', KEYS[4], '*', 1) end
    total = tonumber(redis.call('HGET', KEYS[4], '*'))
  end
  local function drop(m)
    redis.call('ZREM', KEYS[1], m)
    if counted then
      local n = tonumber(redis.call('HGET', KEYS[4], m) or '0')
      redis.call('HDEL', KEYS[4], m)
      total = tonumber(redis.call('HINCRBY', KEYS[4], '*', -n))
    end
  end
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. (at - ttl), 'LIMIT', 0, ${EVICT_STEPS})) do drop(m) end
  local steps = 0
  while steps < ${EVICT_STEPS} and ((maxConversations > 0 and redis.call('ZCARD', KEYS[1]) > maxConversations) or (counted and total > maxEvents)) do
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
    if oldest == nil or oldest == member then break end
    drop(oldest)
    evicted[#evicted + 1] = oldest
    steps = steps + 1
  end
  redis.call('PEXPIRE', KEYS[1], ttl)
  if counted then redis.call('PEXPIRE', KEYS[4], ttl) end
end
if #ARGV > 8 then
  for i = 9, #ARGV, 2 do
    redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
    redis.call('HINCRBY', KEYS[3], ARGV[i], ARGV[i + 1])
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
end
return evicted`;

/**
 * A batch's events on one Redis (not a cluster, where a batch's keys span many slots): each
 * event's append and its two index calls, the scripts above in the same order, in one script call
 * instead of three commands per event (each a command that recap's Redis client builds and reads
 * the reply of: about half of an event's CPU in recap). KEYS: every call's keys in order (2 for
 * an append, 4 for an index). ARGV: per call its kind (`a`: append; `t`: an index whose evicted
 * conversations are returned; `i`: one whose are not), its argument count, its arguments.
 */
const RECORD_BATCH = `
local function append(KEYS, ARGV)${APPEND}
end
local function index(KEYS, ARGV)${INDEX_AND_COUNT}
end
local evicted = {}
local k, a = 1, 1
while a <= #ARGV do
  local kind, n = ARGV[a], tonumber(ARGV[a + 1])
  local width = kind == 'a' and 2 or 4
  local keys, args = {}, {}
  for i = 1, width do keys[i] = KEYS[k + i - 1] end
  for i = 1, n do args[i] = ARGV[a + 1 + i] end
  k, a = k + width, a + 2 + n
  if kind == 'a' then
    append(keys, args)
  else
    local left = index(keys, args)
    if kind == 't' then
      for _, m in ipairs(left) do evicted[#evicted + 1] = m end
    end
  end
end
return evicted`;

/** Takes conversations out of an index (and their events out of its counts). KEYS: index, event counts hash. ARGV: members. */
const UNINDEX = `
for _, m in ipairs(ARGV) do
  redis.call('ZREM', KEYS[1], m)
  local n = redis.call('HGET', KEYS[2], m)
  if n then
    redis.call('HDEL', KEYS[2], m)
    redis.call('HINCRBY', KEYS[2], '*', -tonumber(n))
  end
end
return 0`;

/**
 * One page of an index, newest first: members (with scores) after the cursor (score ARGV[1] or
 * '+inf', and among that score's members those below ARGV[2]), at most ARGV[3] of them.
 */
const PAGE = `
local max, after, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
local out = {}
local offset = 0
while #out < 2 * limit do
  local rows = redis.call('ZRANGE', KEYS[1], max, '-inf', 'BYSCORE', 'REV', 'LIMIT', offset, limit, 'WITHSCORES')
  if #rows == 0 then break end
  for i = 1, #rows, 2 do
    if #out < 2 * limit and not (after ~= '' and tonumber(rows[i + 1]) == tonumber(max) and rows[i] >= after) then
      out[#out + 1] = rows[i]
      out[#out + 1] = rows[i + 1]
    end
  end
  offset = offset + limit
end
return out`;

export interface EventScripts {
  recapEventAppend(stream: string, entry: string, ...args: (string | number)[]): Promise<null>;
  recapEventIndex(index: string, minute: string, hour: string, counts: string, ...args: (string | number)[]): Promise<string[]>;
  recapEventUnindex(index: string, counts: string, ...members: string[]): Promise<number>;
  recapEventPage(index: string, max: string, after: string, limit: number): Promise<string[]>;
  /** RECORD_BATCH: the number of keys, the keys, then the calls' arguments. */
  recapEventBatch(keyCount: number, ...keysAndArgs: (string | number)[]): Promise<string[]>;
}

export function defineEventScripts<C extends Redis | Cluster>(client: C): C & EventScripts {
  client.defineCommand('recapEventAppend', { numberOfKeys: 2, lua: APPEND });
  client.defineCommand('recapEventIndex', { numberOfKeys: 4, lua: INDEX_AND_COUNT });
  client.defineCommand('recapEventUnindex', { numberOfKeys: 2, lua: UNINDEX });
  client.defineCommand('recapEventPage', { numberOfKeys: 1, lua: PAGE });
  client.defineCommand('recapEventBatch', { lua: RECORD_BATCH });
  // defineCommand adds the methods at runtime; this is the one place their types are asserted.
  return client as C & EventScripts;
}
