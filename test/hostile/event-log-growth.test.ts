import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTenant } from '../../src/conversation/identify.js';
import { type Harness, SUMMARIZER, smallModel, startHarness, TEST_SECRET } from '../helpers/harness.js';
import { rawRequest } from '../helpers/plain-request.js';
import { waitFor } from '../helpers/redis-process.js';

// B28: every request of a compacting model writes an event. One client sending many tiny requests
// with new conversation ids must not grow Redis without bound, leave conversations no index can
// list, or push every other tenant out of the admin's listing: each tenant keeps at most
// `events.max_conversations` conversations and `events.max_per_tenant` events, and what leaves its
// index is deleted, events and entry.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `grow${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const NOISY = 'ck-noisy-3c5e7a9b1d2f4a6c8e0b1d3f5a7c9e2b1';
const QUIET = 'ck-quiet-7e5c3a1f9d8b6e4c2a0f9d7b5e3c1a8f2';
const ADMIN = 'admin-token-growth-0123456789abcdef';
const MAX_CONVERSATIONS = 20;
const MAX_PER_TENANT = 30;
// The documented worst case per tenant (docs): per conversation kept (a Redis stream takes ~4.8 KB
// with one event in it, its entry ~0.4 KB, its index places the rest), and per event kept (the
// largest event recap writes takes ~0.7 KB in a stream).
const BYTES_PER_CONVERSATION = 5632;
const BYTES_PER_EVENT = 700;

let h: Harness;
let redis: Redis;
beforeAll(async () => {
  redis = new Redis(REDIS);
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [smallModel()],
    extra: {
      background: { enabled: false },
      server: { admin_token: ADMIN },
      store: { url: REDIS, key_prefix: PREFIX },
      events: { max_conversations: MAX_CONVERSATIONS, max_per_tenant: MAX_PER_TENANT },
      clients: [
        { name: 'noisy', key: NOISY },
        { name: 'quiet', key: QUIET },
      ],
    },
  });
});
afterAll(async () => {
  await h?.close();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

// Requests answered so far: each writes one event, after its response.
let sent = 0;

async function chat(key: string, conversation: string) {
  sent++;
  const headers = { authorization: `Bearer ${key}`, 'x-conversation-id': conversation };
  const messages = [{ role: 'user', content: `hi ${conversation}` }];
  const r = await rawRequest(h.recap.url, { target: '/v1/chat/completions', headers, body: { model: 'gpt-test-small', messages } });
  expect(r.status).toBe(200);
}

async function adminListing(): Promise<{ id: string; client: string }[]> {
  const out: { id: string; client: string }[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const r = await rawRequest(h.recap.url, { target: `/recap/v1/conversations?limit=200${cursor ? `&cursor=${cursor}` : ''}`, headers: { 'x-recap-admin-token': ADMIN } });
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body) as { conversations: { id: string; client: string }[]; next_cursor: string | null };
    out.push(...body.conversations);
    cursor = body.next_cursor;
    if (!cursor) return out;
  }
  throw new Error('the listing did not end');
}

/**
 * Waits until every request's event is written. A write ends once the conversations it pushed out
 * of their tenant's index are deleted, so what is read afterwards is what recap leaves; a listing
 * that shows the last conversation shows it before those deletions.
 */
async function allEventsWritten(): Promise<void> {
  const written = async () => {
    const text = await (await fetch(`${h.recap.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('recap_events_total{outcome="written"}'));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  await waitFor(`${sent} events written`, async () => (await written()) >= sent, 15_000);
}

/** Bytes Redis holds for a tenant's events: its conversations' streams and entries, its index and counts. */
async function tenantBytes(tenant: string): Promise<{ bytes: number; conversations: number }> {
  const keys = [...(await redis.keys(`${PREFIX}:{${tenant}.*}:*`)), ...(await redis.keys(`${PREFIX}:{${tenant}}:*`))];
  const sizes = await Promise.all(keys.map(async (k) => Number((await redis.memory('USAGE', k)) ?? 0)));
  return { bytes: sizes.reduce((a, b) => a + b, 0), conversations: keys.filter((k) => k.endsWith(':entry')).length };
}

describe('events per tenant', () => {
  it("bound one tenant's conversations and bytes, delete what leaves the index, and keep other tenants in the admin's listing", async () => {
    await chat(QUIET, 'quiet-one');
    for (let i = 0; i < 120; i++) await chat(NOISY, `noisy-${i}`);
    await allEventsWritten();
    const noisy = await tenantBytes(clientTenant('noisy', TEST_SECRET));
    // Nothing stored is out of every index: the tenant keeps its newest conversations, no more.
    expect(noisy.conversations).toBeLessThanOrEqual(MAX_CONVERSATIONS);
    expect(noisy.bytes).toBeLessThanOrEqual(MAX_CONVERSATIONS * BYTES_PER_CONVERSATION + MAX_PER_TENANT * BYTES_PER_EVENT);
    const listed = await adminListing();
    expect(listed.filter((c) => c.client === 'noisy')).toHaveLength(noisy.conversations);
    expect(listed.map((c) => c.id)).toContain('quiet-one');
    expect(listed.map((c) => c.id)).not.toContain('noisy-0');
  });

  it('bound events per tenant across its conversations', async () => {
    for (let turn = 0; turn < 3; turn++) for (let i = 0; i < 15; i++) await chat(NOISY, `busy-${i}`);
    await allEventsWritten();
    const tenant = clientTenant('noisy', TEST_SECRET);
    const streams = await redis.keys(`${PREFIX}:{${tenant}.*}:ev`);
    const events = (await Promise.all(streams.map((k) => redis.xlen(k)))).reduce((a, b) => a + b, 0);
    expect(events).toBeLessThanOrEqual(MAX_PER_TENANT);
    expect(events).toBeGreaterThan(MAX_PER_TENANT / 2);
  });
});
