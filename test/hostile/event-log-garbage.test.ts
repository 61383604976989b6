import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTenant } from '../../src/conversation/identify.js';
import { type Harness, SUMMARIZER, smallModel, startHarness, TEST_SECRET } from '../helpers/harness.js';
import { rawRequest } from '../helpers/plain-request.js';
import { waitFor } from '../helpers/redis-process.js';

// B29: what recap cannot read back from Redis (an event stream entry, an index member or an entry
// hash written by something else, or damaged) is skipped and counted in a metric; the listing and
// the events answer with the rest, never 500 and never store_unavailable while Redis is up.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `junk${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const KEY = 'ck-junk-3c5e7a9b1d2f4a6c8e0b1d3f5a7c9e2b1d';

let h: Harness;
let redis: Redis;
beforeAll(async () => {
  redis = new Redis(REDIS);
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [smallModel()],
    extra: { background: { enabled: false }, store: { url: REDIS, key_prefix: PREFIX }, clients: [{ name: 'junk', key: KEY }] },
  });
});
afterAll(async () => {
  await h?.close();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const headers = { authorization: `Bearer ${KEY}` };

async function get(target: string) {
  const r = await rawRequest(h.recap.url, { target, headers });
  return { status: r.status, body: JSON.parse(r.body) as Record<string, unknown> };
}

async function unreadable(): Promise<number> {
  const text = (await rawRequest(h.recap.url, { target: '/metrics' })).body;
  return [...text.matchAll(/^recap_store_unreadable_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

describe('garbage in the event log', () => {
  it('is skipped and counted: the events and the listing answer with the rest', async () => {
    for (const text of ['first', 'second']) {
      const r = await rawRequest(h.recap.url, {
        target: '/v1/chat/completions',
        headers: { ...headers, 'x-conversation-id': 'kept' },
        body: { model: 'gpt-test-small', messages: [{ role: 'user', content: text }] },
      });
      expect(r.status).toBe(200);
    }
    await waitFor('both events written', async () => ((await get('/recap/v1/conversations/kept/events')).body.events as unknown[] | undefined)?.length === 2, 5_000);
    const tenant = clientTenant('junk', TEST_SECRET);
    const [stream] = await redis.keys(`${PREFIX}:{${tenant}.*}:ev`);
    expect(stream).toBeDefined();
    // Entries no recap wrote, between and around the real ones.
    await redis.xadd(stream!, '*', 'e', 'not json at all');
    await redis.xadd(stream!, '*', 'other', 'field', 'e', '{}');
    await redis.xadd(stream!, '*', 'e', '{"at":"yesterday","route":"chat","action":"none"}');
    const index = `${PREFIX}:{${tenant}}:conversations`;
    const now = Date.now();
    await redis.zadd(index, now, 'no-dot-here', now, `${tenant}.wrongtype`, now, `${tenant}.badtime`, now, '{x}.y');
    await redis.set(`${PREFIX}:{${tenant}.wrongtype}:entry`, 'a string, not a hash');
    await redis.hset(`${PREFIX}:{${tenant}.badtime}:entry`, 'last', 'soon', 'requests', '1');
    const before = await unreadable();

    const events = await get('/recap/v1/conversations/kept/events');
    expect(events.status).toBe(200);
    expect((events.body.events as { action: string }[]).map((e) => e.action)).toEqual(['none', 'none']);

    const paged = await get('/recap/v1/conversations/kept/events?limit=2');
    expect(paged.status).toBe(200);
    expect(paged.body.next_cursor).toEqual(expect.any(String));

    const listing = await get('/recap/v1/conversations');
    expect(listing.status).toBe(200);
    expect((listing.body.conversations as { id: string }[]).map((c) => c.id)).toEqual(['kept']);

    // A stream key that holds another type is read as no events, not as an outage.
    const [, other] = await Promise.all([redis.del(stream!), redis.set(stream!, 'not a stream')]);
    expect(other).toBe('OK');
    const wrongType = await get('/recap/v1/conversations/kept/events');
    expect(wrongType.status).toBe(200);
    expect(wrongType.body.events).toEqual([]);
    expect(await unreadable()).toBeGreaterThanOrEqual(before + 6);
  });
});
