import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../src/messages/types.js';
import { prose } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { dumpRedis } from './helpers/redis-dump.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 19: who a tenant is. Two configured clients are two tenants, whatever conversation ids
// they send; a caller with no credential at all is nobody, so it keeps and reads no records,
// unless server.anonymous is `shared` (one tenant for a single-user local setup).

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = () => `ten${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const A = 'ck-alpha-1c3e5a7b9d2f4a6c8e0b1d3f5a7c9e2b';
const B = 'ck-bravo-9e7c5a3f1d8b6e4c2a0f9d7b5e3c1a8f';
const ADMIN = 'admin-token-0123456789abcdef';

function history(marker: string): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: 'You help the ops team.' }];
  for (let t = 1; t <= 30; t++) out.push({ role: 'user', content: `${prose(t)} ${marker}-${t}.` }, { role: 'assistant', content: `ok ${t}` });
  out.push({ role: 'user', content: 'What now?' });
  return out;
}

async function chat(h: Harness, key: string | null, conversation: string | null, messages: ChatMessage[]) {
  const headers = { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(conversation ? { 'x-conversation-id': conversation } : {}) };
  const r = await rawRequest(h.recap.url, { target: '/v1/chat/completions', headers, body: { model: 'gpt-test-small', messages } });
  expect(r.status).toBe(200);
  return r.headers['x-recap-action'];
}

const inspect = (h: Harness, key: string | null, id: string, method = 'GET') =>
  rawRequest(h.recap.url, { method, target: `/recap/v1/conversations/${id}`, headers: key ? { authorization: `Bearer ${key}` } : {} });
// The checkpoint is written once the reply reached the client, so a reader right after may be first.
const untilStored = (h: Harness, key: string | null, id: string) => waitFor(`${id} to be stored`, async () => (await inspect(h, key, id)).status === 200, 5_000);
const summarizerCalls = (h: Harness) => h.fake.summarizerRequests().length;

describe('two configured clients', () => {
  const PREFIX = prefix();
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      fake: { summarizerModel: SUMMARIZER },
      apiKey: 'sk-upstream-own-key-5e1d7c9b3a',
      models: [smallModel()],
      extra: {
        background: { enabled: false },
        server: { admin_token: ADMIN },
        store: { url: REDIS, key_prefix: PREFIX },
        clients: [
          { name: 'alpha', key: A },
          { name: 'bravo', key: B },
        ],
      },
    });
  });
  afterAll(async () => h?.close());

  it("never see each other's records: no reuse, GET and DELETE 404, with the same conversation id", async () => {
    const ofA = history('ALPHA-ONLY');
    expect(await chat(h, A, 'shared-id', ofA)).toBe('compacted');
    await untilStored(h, A, 'shared-id');
    expect((await inspect(h, B, 'shared-id')).status).toBe(404);
    expect((await inspect(h, B, 'shared-id', 'DELETE')).status).toBe(404);
    const mine = await inspect(h, A, 'shared-id');
    expect(mine.status).toBe(200);
    expect(mine.body).toContain('ALPHA-ONLY');

    // B sends A's very request: it pays for its own summary rather than reusing A's.
    const calls = summarizerCalls(h);
    expect(await chat(h, B, 'shared-id', ofA)).toBe('compacted');
    expect(summarizerCalls(h)).toBe(calls + 1);
    await untilStored(h, B, 'shared-id');
    // Both derived ids too: the same opening messages are two conversations for two clients.
    expect(await chat(h, A, null, history('ALPHA-DERIVED'))).toBe('compacted');
    expect(await chat(h, B, null, history('ALPHA-DERIVED'))).toBe('compacted');
    expect(summarizerCalls(h)).toBe(calls + 3);

    // B forgetting its record leaves A's alone.
    expect((await inspect(h, B, 'shared-id', 'DELETE')).status).toBe(200);
    expect((await inspect(h, B, 'shared-id')).status).toBe(404);
    expect((await inspect(h, A, 'shared-id')).status).toBe(200);
    expect(await chat(h, A, 'shared-id', ofA)).toBe('reused');
  });

  it('lets an admin name a client by ?client=, with the admin token only', async () => {
    const asAdmin = { authorization: `Bearer ${B}`, 'x-recap-admin-token': ADMIN };
    const seen = await rawRequest(h.recap.url, { target: '/recap/v1/conversations/shared-id?client=alpha', headers: asAdmin });
    expect(seen.status).toBe(200);
    expect(seen.body).toContain('ALPHA-ONLY');
    expect((await rawRequest(h.recap.url, { target: '/recap/v1/conversations/shared-id?client=alpha', headers: { authorization: `Bearer ${B}` } })).status).toBe(404);
    expect((await rawRequest(h.recap.url, { target: '/recap/v1/conversations/shared-id?client=nobody', headers: asAdmin })).status).toBe(404);
    // On /recap/v1/* the admin token opens the door by itself (it names the tenant), never on /v1/*.
    expect((await rawRequest(h.recap.url, { target: '/recap/v1/conversations/shared-id?client=alpha', headers: { 'x-recap-admin-token': ADMIN } })).status).toBe(200);
    const alone = await rawRequest(h.recap.url, { target: '/recap/v1/conversations/shared-id', headers: { 'x-recap-admin-token': ADMIN } });
    expect(alone.status).toBe(400);
    expect(JSON.parse(alone.body).error.param).toBe('tenant');
    expect((await rawRequest(h.recap.url, { target: '/recap/v1/conversations/shared-id?client=alpha', headers: { 'x-recap-admin-token': `${ADMIN}x` } })).status).toBe(401);
    const forwarded = h.fake.requests.length;
    expect((await rawRequest(h.recap.url, { target: '/v1/models', headers: { 'x-recap-admin-token': ADMIN } })).status).toBe(401);
    expect(h.fake.requests.length).toBe(forwarded);
  });
});

describe('callers without any credential (no clients configured)', () => {
  const PREFIX = prefix();
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      fake: { summarizerModel: SUMMARIZER },
      models: [smallModel()],
      extra: { store: { url: REDIS, key_prefix: PREFIX } },
    });
  });
  afterAll(async () => h?.close());

  it('are still compacted when over budget, but keep no checkpoint and prepare nothing in the background', async () => {
    const calls = summarizerCalls(h);
    expect(await chat(h, null, 'anon-conv', history('ANON'))).toBe('compacted');
    await h.recap.runtime.background.idle();
    expect(await chat(h, null, 'anon-conv', history('ANON'))).toBe('compacted');
    await h.recap.runtime.background.idle();
    // One summary per request, none kept; no background job ran.
    expect(summarizerCalls(h)).toBe(calls + 2);
    expect((await dumpRedis(REDIS, PREFIX)).keys).toEqual([]);
  });

  it('cannot inspect or delete anything: 401 missing_credential', async () => {
    expect(await chat(h, 'sk-caller-own-key-1', 'keyed-conv', history('KEYED'))).toBe('compacted');
    await untilStored(h, 'sk-caller-own-key-1', 'keyed-conv');
    for (const method of ['GET', 'DELETE']) {
      const r = await inspect(h, null, 'keyed-conv', method);
      expect(r.status).toBe(401);
      expect(JSON.parse(r.body).error.code).toBe('missing_credential');
    }
  });
});

describe('callers without any credential, server.anonymous: shared', () => {
  const PREFIX = prefix();
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      fake: { summarizerModel: SUMMARIZER },
      models: [smallModel()],
      extra: { background: { enabled: false }, server: { anonymous: 'shared' }, store: { url: REDIS, key_prefix: PREFIX } },
    });
  });
  afterAll(async () => h?.close());

  it('are one tenant: the second request reuses the first one’s checkpoint, and can inspect and delete it', async () => {
    const calls = summarizerCalls(h);
    expect(await chat(h, null, 'local-conv', history('LOCAL'))).toBe('compacted');
    await untilStored(h, null, 'local-conv');
    expect(await chat(h, null, 'local-conv', history('LOCAL'))).toBe('reused');
    expect(summarizerCalls(h)).toBe(calls + 1);
    // One record (and the conversation's lock table, released: no claim left in it), besides the event log's keys.
    const stored = await dumpRedis(REDIS, PREFIX);
    expect(stored.keys.filter((k) => k.endsWith(':rec'))).toHaveLength(1);
    const eventLog = /:(ev|entry|conversations|event-counts)$|:counts:(minute|hour):\d+$/;
    expect(stored.keys.filter((k) => !k.endsWith(':rec') && !k.endsWith(':locks') && !eventLog.test(k))).toEqual([]);
    expect(stored.text).not.toMatch(/"h:/);
    const seen = await inspect(h, null, 'local-conv');
    expect(seen.status).toBe(200);
    expect(seen.body).toContain('LOCAL');
    // A caller with a credential is still its own tenant.
    expect((await inspect(h, 'sk-someone', 'local-conv')).status).toBe(404);
    expect((await inspect(h, null, 'local-conv', 'DELETE')).status).toBe(200);
    expect((await inspect(h, null, 'local-conv')).status).toBe(404);
  });
});
