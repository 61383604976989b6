import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTenant } from '../src/conversation/identify.js';
import type { ChatMessage } from '../src/messages/types.js';
import { prose } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness, TEST_SECRET } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { dumpRedis } from './helpers/redis-dump.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 29: the listing API. GET /recap/v1/conversations (newest first, paged) and
// …/{id}/events, one tenant's with a client key, every tenant's with the admin token; events
// bounded, without prompt text, written after the response.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `list${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const A = 'ck-alpha-3c5e7a9b1d2f4a6c8e0b1d3f5a7c9e2b';
const B = 'ck-bravo-7e5c3a1f9d8b6e4c2a0f9d7b5e3c1a8f';
const ADMIN = 'admin-token-list-0123456789abcdef';
const MARKER = 'PROMPT-TEXT-MARKER-5d1e';
const MAX_EVENTS = 5;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    // The second one takes any name after its prefix, however long.
    models: [smallModel(), { ...smallModel(), match: 'gpt-test-big*' }],
    extra: {
      background: { enabled: false },
      server: { admin_token: ADMIN },
      store: { url: REDIS, key_prefix: PREFIX },
      events: { max_per_conversation: MAX_EVENTS },
      clients: [
        { name: 'alpha', key: A },
        { name: 'bravo', key: B },
      ],
    },
  });
});
afterAll(async () => h?.close());

const who = (key: string | null) => (key === ADMIN ? { 'x-recap-admin-token': ADMIN } : key ? { authorization: `Bearer ${key}` } : ({} as Record<string, string>));

async function chat(key: string, conversation: string | null, messages: ChatMessage[], model = 'gpt-test-small') {
  const headers = { ...who(key), ...(conversation ? { 'x-conversation-id': conversation } : {}) };
  const r = await rawRequest(h.recap.url, { target: '/v1/chat/completions', headers, body: { model, messages } });
  expect(r.status).toBe(200);
  return r;
}

const short = (text: string): ChatMessage[] => [
  { role: 'system', content: 'You help the ops team.' },
  { role: 'user', content: text },
];

function long(marker: string): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: 'You help the ops team.' }];
  for (let t = 1; t <= 30; t++) out.push({ role: 'user', content: `${prose(t)} ${marker}-${t}.` }, { role: 'assistant', content: `ok ${t}` });
  out.push({ role: 'user', content: 'What now?' });
  return out;
}

async function api(key: string | null, target: string, method = 'GET') {
  const r = await rawRequest(h.recap.url, { method, target, headers: who(key) });
  return { status: r.status, body: r.body ? JSON.parse(r.body) : null };
}

type Listed = { id: string | null; conversation: string; tenant?: string; client?: string | null; requests: number; last_action: string; tokens_saved: number };

async function listAll(key: string, query = '', limit = 2): Promise<Listed[]> {
  const out: Listed[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const r = await api(key, `/recap/v1/conversations?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status).toBe(200);
    expect(r.body.conversations.length).toBeLessThanOrEqual(limit);
    out.push(...r.body.conversations);
    cursor = r.body.next_cursor;
    if (!cursor) return out;
  }
  throw new Error('the listing did not end');
}

// An event is written just after its response: a reader right after may be first.
const untilListed = (key: string, id: string, requests = 1) =>
  waitFor(`${id} listed with ${requests} requests`, async () => (await listAll(key, '', 200)).some((c) => c.id === id && c.requests >= requests), 5_000);

describe('the listing', () => {
  it("shows a tenant's conversations newest first, paged with a cursor, and no other tenant's", async () => {
    for (let i = 1; i <= 5; i++) await chat(A, `alpha-${i}`, short(`question ${i}`));
    await chat(B, 'bravo-1', short('their question'));
    await untilListed(A, 'alpha-5');
    await untilListed(B, 'bravo-1');
    const listed = await listAll(A);
    expect(listed.map((c) => c.id)).toEqual(['alpha-5', 'alpha-4', 'alpha-3', 'alpha-2', 'alpha-1']);
    expect(listed[0]).toMatchObject({ route: 'chat', model: 'gpt-test-small', requests: 1, last_action: 'none', tokens_saved: 0 });
    // A tenant's own listing names no tenant.
    expect(listed[0]!.tenant).toBeUndefined();
    expect((await listAll(B)).map((c) => c.id)).toEqual(['bravo-1']);
  });

  it('shows every tenant to the admin token, each by its client name and hash, and one by ?client=', async () => {
    const all = await listAll(ADMIN, '', 3);
    expect(all.map((c) => c.id)).toEqual(expect.arrayContaining(['bravo-1', 'alpha-5', 'alpha-1']));
    const bravo = all.find((c) => c.id === 'bravo-1')!;
    expect(bravo).toMatchObject({ client: 'bravo', tenant: clientTenant('bravo', TEST_SECRET) });
    expect((await listAll(ADMIN, '&client=alpha')).every((c) => c.client === 'alpha')).toBe(true);
    expect((await listAll(ADMIN, `&tenant=${clientTenant('bravo', TEST_SECRET)}`)).map((c) => c.id)).toEqual(['bravo-1']);
    // Naming a tenant takes the admin token.
    expect((await api(A, '/recap/v1/conversations?client=bravo')).status).toBe(404);
  });

  it('refuses a cursor or a limit it did not give', async () => {
    expect((await api(A, '/recap/v1/conversations?cursor=bm9wZQ')).status).toBe(400);
    expect((await api(A, '/recap/v1/conversations?limit=0')).status).toBe(400);
    expect((await api(A, '/recap/v1/conversations/alpha-1/events?cursor=x')).status).toBe(400);
  });

  it('answers 401 without a key, and tells a caller who it is', async () => {
    for (const target of ['/recap/v1/conversations', '/recap/v1/conversations/alpha-1/events', '/recap/v1/overview', '/recap/v1/whoami']) {
      expect((await api(null, target)).status).toBe(401);
    }
    expect((await api(A, '/recap/v1/whoami')).body).toEqual({ admin: false, kind: 'client', client: 'alpha', tenant: clientTenant('alpha', TEST_SECRET) });
    expect((await api(ADMIN, '/recap/v1/whoami')).body).toEqual({ admin: true, kind: 'admin', client: null, tenant: null });
  });
});

describe('the events of a conversation', () => {
  it('holds one event per request, newest first, paged, bounded in count', async () => {
    const messages = short('first');
    for (let i = 0; i < 8; i++) {
      await chat(A, 'ev-count', messages);
      messages.push({ role: 'assistant', content: `reply ${i}` }, { role: 'user', content: `turn ${i}` });
    }
    await untilListed(A, 'ev-count', 8);
    const first = await api(A, '/recap/v1/conversations/ev-count/events?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.conversation).toMatchObject({ id: 'ev-count', requests: 8 });
    const seen = [...first.body.events];
    let cursor = first.body.next_cursor;
    while (cursor) {
      const next = await api(A, `/recap/v1/conversations/ev-count/events?limit=2&cursor=${cursor}`);
      seen.push(...next.body.events);
      cursor = next.body.next_cursor;
    }
    // Only the newest MAX_EVENTS are kept; the newest has the longest prompt.
    expect(seen).toHaveLength(MAX_EVENTS);
    expect(seen.map((e) => e.tokens_in)).toEqual([...seen.map((e) => e.tokens_in)].sort((x, y) => y - x));
    expect(seen[0]).toMatchObject({
      route: 'chat',
      model: 'gpt-test-small',
      model_label: 'gpt-test-small',
      action: 'none',
      status: 200,
      cleared: 0,
      summarizer_calls: 0,
      recalls: 0,
    });
    expect(seen[0].latency_ms).toBeGreaterThan(0);
    expect(seen[0].budget).toBe(2700);
  });

  it('records a compaction with its summarizer call, and holds no prompt text anywhere', async () => {
    await chat(A, 'ev-compact', long(MARKER));
    await untilListed(A, 'ev-compact');
    const { body } = await api(A, '/recap/v1/conversations/ev-compact/events');
    const [event] = body.events;
    expect(event).toMatchObject({ action: 'compacted', summarizer_calls: 1 });
    expect(event.summarizer_tokens).toBeGreaterThan(0);
    expect(event.tokens_out).toBeLessThan(event.tokens_in);
    expect(body.conversation.tokens_saved).toBe(event.tokens_in - event.tokens_out);
    expect(JSON.stringify(body)).not.toContain(MARKER);
    // The record holds the summary (client-derived text, by design); no event-log key does.
    const stored = await dumpRedis(REDIS, PREFIX);
    const eventKeys = stored.text.split('\n').filter((line) => !/^\S+:rec /.test(line));
    expect(stored.text).toContain(MARKER);
    expect(eventKeys.join('\n')).not.toContain(MARKER);
    expect(eventKeys.join('\n')).not.toContain('ops team');
  });

  it('keeps each event small, whatever the client sent', async () => {
    const huge = `gpt-test-big-${'x'.repeat(100_000)}`;
    await chat(A, 'ev-huge', short('hi'), huge);
    await untilListed(A, 'ev-huge');
    const { body } = await api(A, '/recap/v1/conversations/ev-huge/events');
    expect(body.events[0].model.length).toBeLessThanOrEqual(128);
    const raw = new Redis(REDIS);
    try {
      const keys = await raw.keys(`${PREFIX}:*:ev`);
      const sizes = await Promise.all(keys.map(async (k) => Number(await raw.memory('USAGE', k))));
      // A stream of a few events of a few hundred bytes each.
      expect(Math.max(...sizes)).toBeLessThan(8 * 1024);
      for (const k of keys) expect(await raw.xlen(k)).toBeLessThanOrEqual(MAX_EVENTS);
    } finally {
      raw.disconnect();
    }
  });

  it("is another tenant's 404, by id and by hash; the admin reads it by ?client=", async () => {
    expect((await api(B, '/recap/v1/conversations/ev-count/events')).status).toBe(404);
    const { body } = await api(A, '/recap/v1/conversations/ev-count/events');
    const hash = body.conversation.conversation;
    expect((await api(A, `/recap/v1/conversations/${hash}/events?by=hash`)).status).toBe(200);
    expect((await api(B, `/recap/v1/conversations/${hash}/events?by=hash`)).status).toBe(404);
    expect((await api(ADMIN, `/recap/v1/conversations/${hash}/events?by=hash&client=alpha`)).status).toBe(200);
    expect((await api(ADMIN, '/recap/v1/conversations/ev-count/events?client=bravo')).status).toBe(404);
    expect((await api(ADMIN, '/recap/v1/conversations/ev-count/events')).status).toBe(400);
  });

  it('lists a conversation without a header by its hash only, and forgets it on DELETE', async () => {
    await chat(A, null, long('DERIVED'));
    await waitFor('the derived conversation listed', async () => (await listAll(A, '', 200)).some((c) => c.id === null), 5_000);
    const derived = (await listAll(A, '', 200)).find((c) => c.id === null)!;
    const target = `/recap/v1/conversations/${derived.conversation}`;
    expect((await api(A, `${target}?by=hash`)).body.checkpoints).toHaveLength(1);
    expect((await api(A, `${target}/events?by=hash`)).body.events[0].action).toBe('compacted');
    expect((await api(A, `${target}?by=hash`, 'DELETE')).status).toBe(200);
    expect((await api(A, `${target}/events?by=hash`)).status).toBe(404);
    expect((await listAll(A, '', 200)).some((c) => c.conversation === derived.conversation)).toBe(false);
    expect((await api(A, `${target}?by=hash`, 'DELETE')).status).toBe(404);
  });
});

describe('a Responses API conversation', () => {
  it('is listed with its route and read by id with ?route=responses', async () => {
    const r = await rawRequest(h.recap.url, {
      target: '/v1/responses',
      headers: { ...who(A), 'x-conversation-id': 'resp-1' },
      body: { model: 'gpt-test-small', input: [{ role: 'user', content: 'hello' }], store: false },
    });
    expect(r.status).toBe(200);
    await untilListed(A, 'resp-1');
    expect((await listAll(A, '', 200)).find((c) => c.id === 'resp-1')).toMatchObject({ route: 'responses' });
    const { body } = await api(A, '/recap/v1/conversations/resp-1/events?route=responses');
    expect(body.events[0]).toMatchObject({ route: 'responses', action: 'none', status: 200 });
    // The same id on the chat route is another conversation.
    expect((await api(A, '/recap/v1/conversations/resp-1/events')).status).toBe(404);
  });
});

describe('every answer of the listing API', () => {
  it('holds no prompt text: the listing, each conversation’s events, the overview', async () => {
    const all = await listAll(ADMIN, '', 200);
    expect(all.length).toBeGreaterThanOrEqual(10);
    const answers = [JSON.stringify(all), JSON.stringify((await api(ADMIN, '/recap/v1/overview?range=1h')).body)];
    for (const c of all) {
      const { status, body } = await api(ADMIN, `/recap/v1/conversations/${c.conversation}/events?by=hash&tenant=${c.tenant}&limit=200`);
      expect(status).toBe(200);
      expect(body.events.length).toBeGreaterThan(0);
      answers.push(JSON.stringify(body.events));
    }
    const text = answers.join('\n');
    expect(text).toContain('"compacted"');
    for (const prompt of [MARKER, 'DERIVED', 'ops team', 'question 1', 'their question', 'What now?']) expect(text).not.toContain(prompt);
  });
});

describe('the admin token', () => {
  it('never reaches a log line or the store', async () => {
    await api(ADMIN, '/recap/v1/conversations');
    await rawRequest(h.recap.url, { target: '/recap/v1/conversations', headers: { 'x-recap-admin-token': `${ADMIN}-wrong` } });
    await rawRequest(h.recap.url, { target: '/v1/chat/completions', headers: { 'x-recap-admin-token': ADMIN }, body: { model: 'gpt-test-small', messages: short('x') } });
    await chat(A, 'with-admin-header', short('y'));
    expect(h.logs.lines.some((l) => l.includes('"msg":"request"'))).toBe(true);
    expect(h.logs.text).not.toContain(ADMIN);
    expect((await dumpRedis(REDIS, PREFIX)).text).not.toContain(ADMIN);
  });
});

describe('the in-memory store', () => {
  let m: Harness;
  beforeAll(async () => {
    m = await startHarness({
      fake: { summarizerModel: SUMMARIZER },
      models: [smallModel()],
      // An event is ~250 JSON bytes: a log of 5 is ~1,250, so 3,000 bytes hold two.
      extra: { background: { enabled: false }, events: { max_per_conversation: MAX_EVENTS, max_conversations: 3, memory_max_bytes: 3_000 } },
    });
  });
  afterAll(async () => m?.close());

  it('keeps the events within their bounds: per conversation, conversations listed, bytes in all', async () => {
    const ask = (conversation: string, i: number) =>
      rawRequest(m.recap.url, {
        target: '/v1/chat/completions',
        headers: { authorization: `Bearer ${A}`, 'x-conversation-id': conversation },
        body: { model: 'gpt-test-small', messages: short(`q ${i}`) },
      });
    const get = async (target: string) => {
      const r = await rawRequest(m.recap.url, { target, headers: { authorization: `Bearer ${A}` } });
      return { status: r.status, body: JSON.parse(r.body) };
    };
    for (const c of ['mem-1', 'mem-2', 'mem-3', 'mem-4']) for (let i = 0; i < 7; i++) expect((await ask(c, i)).status).toBe(200);
    await waitFor(
      'mem-4 listed with 7 requests',
      async () => (await get('/recap/v1/conversations')).body.conversations.some((c: Listed) => c.id === 'mem-4' && c.requests === 7),
      5_000,
    );
    // The newest three listed; the fourth, out of the tenant's index, deleted with its place in it;
    // each log its newest five; the logs within 3,000 bytes, the least recently written gone first
    // (the entries of those still listed, with their counts, stay).
    expect((await get('/recap/v1/conversations')).body.conversations.map((c: Listed) => c.id)).toEqual(['mem-4', 'mem-3', 'mem-2']);
    expect((await get('/recap/v1/conversations/mem-1/events')).status).toBe(404);
    const logs = await Promise.all(['mem-2', 'mem-3', 'mem-4'].map((c) => get(`/recap/v1/conversations/${c}/events?limit=200`)));
    expect(logs.map((r) => r.body.events.length)).toEqual([0, MAX_EVENTS, MAX_EVENTS]);
    expect(logs.map((r) => r.body.conversation.requests)).toEqual([7, 7, 7]);
    expect(JSON.stringify(logs[2]!.body.events).length).toBeLessThan(3_000);
  });
});
