import type { Cluster, Redis } from 'ioredis';

// Lua scripts of the Redis event log. Each one's keys share one hash tag (the conversation's, the
// tenant's, or `{*}` for all tenants), so a cluster runs it on one node without CROSSSLOT. Event
// writes carry no deadline (write-deadline.ts): an event or a count that lands late is still right.

/**
 * Appends an event to the conversation's stream (bounded by MAXLEN) and adds it to its entry (a
 * hash); both keep the record's TTL. KEYS: stream, entry. ARGV: event JSON, max events, TTL ms,
 * client id ('' for none), route, model, action, audit, at, tokens in, out, saved, projected saved.
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
redis.call('PEXPIRE', KEYS[2], ARGV[3])`;

/**
 * Puts a conversation first in an index (a sorted set by last seen, bounded in size and age) and
 * adds counts to a minute and an hour bucket. KEYS: index, minute bucket, hour bucket. ARGV:
 * member ('' to touch no index), at, TTL ms, max entries, minute bucket TTL, hour bucket TTL,
 * then name/increment pairs.
 */
const INDEX_AND_COUNT = `
local at = tonumber(ARGV[2])
if ARGV[1] ~= '' then
  redis.call('ZADD', KEYS[1], at, ARGV[1])
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (at - tonumber(ARGV[3])))
  local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
  if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1) end
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
if #ARGV > 6 then
  for i = 7, #ARGV, 2 do
    redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
    redis.call('HINCRBY', KEYS[3], ARGV[i], ARGV[i + 1])
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
end`;

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
  recapEventIndex(index: string, minute: string, hour: string, ...args: (string | number)[]): Promise<null>;
  recapEventPage(index: string, max: string, after: string, limit: number): Promise<string[]>;
}

export function defineEventScripts<C extends Redis | Cluster>(client: C): C & EventScripts {
  client.defineCommand('recapEventAppend', { numberOfKeys: 2, lua: APPEND });
  client.defineCommand('recapEventIndex', { numberOfKeys: 3, lua: INDEX_AND_COUNT });
  client.defineCommand('recapEventPage', { numberOfKeys: 1, lua: PAGE });
  // defineCommand adds the methods at runtime; this is the one place their types are asserted.
  return client as C & EventScripts;
}
