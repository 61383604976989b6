import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory } from './helpers/conversation.js';
import { expectOpenAIError } from './helpers/error-shape.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { rawExchange } from './helpers/raw-http.js';
import { dumpRedis } from './helpers/redis-dump.js';

// Issue 19: with `clients` configured, recap is the door. A request without one of their keys is
// refused with a 401 before anything is read further, forwarded, counted, summarized or stored;
// an admitted client's key never travels on, and the upstream gets recap's own key instead.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `door${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const UPSTREAM_KEY = 'sk-upstream-own-key-5e1d7c9b3a';
const WEB = 'ck-web-4f1a9d2c7e5b3a8f6d0c1e9b7a5d3f2c';
const NARROW = 'ck-narrow-8b6d4f2a0c9e7b5d3f1a8c6e4b2d0f9a';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    apiKey: UPSTREAM_KEY,
    models: [smallModel(), {}],
    extra: {
      background: { enabled: false },
      store: { url: REDIS, key_prefix: PREFIX },
      clients: [
        { name: 'web', key: WEB },
        { name: 'narrow', key: NARROW, models: ['gpt-test-1', 'gpt-test-mini*'] },
      ],
    },
  });
});
afterAll(async () => h?.close());

const chatBody = (model = 'gpt-test-small') => ({ model, messages: overBudgetHistory() });
const post = (target: string, headers: Record<string, string>, body: unknown = chatBody()) => rawRequest(h.recap.url, { method: 'POST', target, headers, body });
const redisKeys = async () => (await dumpRedis(REDIS, PREFIX)).keys;

describe('a request without a client key is refused at the door', () => {
  const refused: [string, Record<string, string>, string][] = [
    ['no Authorization', {}, 'missing_credential'],
    ['an unknown key', { authorization: 'Bearer ck-unknown-0000000000000000000000000000' }, 'invalid_api_key'],
    ['a valid key missing its last character', { authorization: `Bearer ${WEB.slice(0, -1)}` }, 'invalid_api_key'],
    ['a valid key with one more character', { authorization: `Bearer ${WEB}x` }, 'invalid_api_key'],
    ['a valid key in another scheme', { authorization: `Basic ${WEB}` }, 'invalid_api_key'],
    ['a valid key in api-key instead of Authorization', { 'api-key': WEB }, 'missing_credential'],
    ['a valid key in x-api-key instead of Authorization', { 'x-api-key': WEB }, 'missing_credential'],
  ];

  it.each(refused)('%s: 401 on every route, nothing forwarded, summarized or stored', async (_name, headers, code) => {
    const before = h.fake.requests.length;
    const replies = [
      await post('/v1/chat/completions', { ...headers, 'x-conversation-id': 'door-conv' }),
      await post('/v1/embeddings', headers, { model: 'text-embedding-3-small', input: 'x' }),
      await rawRequest(h.recap.url, { target: '/v1/models', headers }),
      await rawRequest(h.recap.url, { target: '/recap/v1/conversations/door-conv', headers }),
      await rawRequest(h.recap.url, { method: 'DELETE', target: '/recap/v1/conversations/door-conv', headers }),
    ];
    for (const r of replies) {
      expect(r.status).toBe(401);
      expectOpenAIError(r.body, code);
      expect(JSON.parse(r.body).error.type).toBe('authentication_error');
      expect(r.headers['www-authenticate']).toBe('Bearer realm="recap"');
      expect(r.headers['x-recap-action']).toBeUndefined();
    }
    expect(h.fake.requests).toHaveLength(before);
    expect(await redisKeys()).toEqual([]);
  });

  // The body is announced and never sent: recap waiting for it would answer nothing before
  // request_timeout_ms (300 s), so a 401 here was sent before reading the body.
  it.each(['/v1/chat/completions', '/v1/responses', '/v1/embeddings', '/recap/v1/conversations/door-conv'])(
    '401 on %s to a client that sent its headers and stalls its body',
    async (target) => {
      const before = h.fake.requests.length;
      const head = `POST ${target} HTTP/1.1\r\nHost: recap.test\r\nAuthorization: Bearer ck-unknown-stalled\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`;
      const x = await rawExchange(h.recap.port, [head, '{"model":"gpt-test-small","messages":['], { responses: 1 });
      expect(x.bytesSent).toBeLessThan(1000);
      expect(x.responses[0]).toMatchObject({ status: 401 });
      expect(JSON.parse(x.responses[0]!.body)).toMatchObject({ error: { code: 'invalid_api_key' } });
      expect(h.fake.requests).toHaveLength(before);
    },
  );

  it('boots without the open-relay warning: clients guard the upstream key', () => {
    expect(h.logs.text).not.toContain('open relay');
  });

  it('raises the SDK its AuthenticationError, and logs the refusal without the key', async () => {
    const bad = new OpenAI({ baseURL: `${h.recap.url}/v1`, apiKey: 'ck-wrong-key-but-long-enough-0123456789', maxRetries: 0 });
    await expect(bad.chat.completions.create(chatBody())).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(bad.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const lines = h.logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request' && l.status === 401);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)).toMatchObject({ error: 'invalid_api_key' });
    expect(h.logs.text).not.toContain('ck-wrong-key-but-long-enough');
  });
});

describe('an admitted client', () => {
  it("reaches the upstream and the summarizer with recap's key only, never its own", async () => {
    const before = h.fake.requests.length;
    const headers = { authorization: `Bearer ${WEB}`, 'api-key': WEB, 'x-api-key': WEB, 'x-conversation-id': 'door-web' };
    const r = await post('/v1/chat/completions', headers);
    expect(r.status).toBe(200);
    expect(r.headers['x-recap-action']).toBe('compacted');
    const models = await rawRequest(h.recap.url, { target: '/v1/models', headers });
    expect(models.status).toBe(200);
    const seen = h.fake.requests.slice(before);
    expect(seen.map((x) => `${x.json?.model ?? '-'} ${x.path}`)).toEqual([`${SUMMARIZER} /v1/chat/completions`, 'gpt-test-small /v1/chat/completions', '- /v1/models']);
    for (const x of seen) {
      expect(x.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      expect(JSON.stringify(x.headers)).not.toContain(WEB);
      expect(x.body).not.toContain(WEB);
    }
    expect((await dumpRedis(REDIS, PREFIX)).text).not.toContain(WEB);
    expect(h.logs.text).not.toContain(WEB);
    // The request log names the client.
    const line = h.logs.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request' && l.route === '/v1/chat/completions')
      .at(-1);
    expect(line).toMatchObject({ client: 'web', status: 200 });
  });

  it('may use only the models its `models` globs name: another gets 403 and nothing is forwarded', async () => {
    const headers = { authorization: `Bearer ${NARROW}` };
    const before = h.fake.requests.length;
    const refused = await post('/v1/chat/completions', headers, chatBody('gpt-test-small'));
    expect(refused.status).toBe(403);
    expectOpenAIError(refused.body, 'model_not_allowed', 'model');
    expect(h.fake.requests).toHaveLength(before);
    const sdk = new OpenAI({ baseURL: `${h.recap.url}/v1`, apiKey: NARROW, maxRetries: 0 });
    await expect(sdk.chat.completions.create({ model: 'gpt-test-small', messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(h.fake.requests).toHaveLength(before);

    for (const model of ['gpt-test-1', 'gpt-test-mini-2']) {
      const ok = await post('/v1/chat/completions', headers, { model, messages: [{ role: 'user', content: 'hi' }] });
      expect(ok.status).toBe(200);
    }
    expect(
      h.fake
        .chatRequests()
        .slice(-2)
        .map((x) => x.json.model),
    ).toEqual(['gpt-test-1', 'gpt-test-mini-2']);
  });
});

describe('`models` on the pass-through routes', () => {
  const headers = { authorization: `Bearer ${NARROW}` };

  it('refuses a JSON body naming another model with 403, forwarding nothing', async () => {
    const before = h.fake.requests.length;
    for (const [target, body] of [
      ['/v1/responses', { model: 'gpt-test-small', input: 'hi' }],
      ['/v1/completions', { model: 'gpt-4o', prompt: 'hi' }],
      ['/v1/embeddings', { model: 'text-embedding-3-large', input: 'x' }],
    ] as const) {
      const r = await post(target, headers, body);
      expect(r.status).toBe(403);
      expectOpenAIError(r.body, 'model_not_allowed', 'model');
    }
    expect(h.fake.requests).toHaveLength(before);
  });

  it('forwards an allowed model, a body without a model and a GET byte for byte', async () => {
    const before = h.fake.requests.length;
    const body = '{"model":"gpt-test-1","input":"hi","seed":9007199254740993}';
    const r = await fetch(`${h.recap.url}/v1/responses`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    expect(r.status).toBe(200);
    expect(await post('/v1/moderations', headers, { input: 'no model named' })).toMatchObject({ status: 200 });
    expect((await rawRequest(h.recap.url, { target: '/v1/models', headers })).status).toBe(200);
    const seen = h.fake.requests.slice(before);
    expect(seen.map((x) => x.path)).toEqual(['/v1/responses', '/v1/moderations', '/v1/models']);
    expect(seen[0]!.body).toBe(body);
    expect(seen[1]!.body).toBe('{"input":"no model named"}');
  });

  it('leaves an unrestricted client’s bodies streamed unread', async () => {
    const r = await post('/v1/responses', { authorization: `Bearer ${WEB}` }, { model: 'anything-at-all', input: 'hi' });
    expect(r.status).toBe(200);
    expect(h.fake.requests.at(-1)!.json.model).toBe('anything-at-all');
  });
});

describe('an upstream without its own api_key, with clients configured', () => {
  let local: Harness;
  beforeAll(async () => {
    local = await startHarness({ models: [{}], extra: { clients: [{ name: 'web', key: WEB }] } });
  });
  afterAll(async () => local?.close());

  it('gets no credential at all (a local server), not the client key', async () => {
    const headers = { authorization: `Bearer ${WEB}`, 'x-api-key': WEB };
    const r = await rawRequest(local.recap.url, {
      method: 'POST',
      target: '/v1/chat/completions',
      headers,
      body: { model: 'gpt-test-1', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(r.status).toBe(200);
    const models = await rawRequest(local.recap.url, { target: '/v1/models', headers });
    expect(models.status).toBe(200);
    expect(local.fake.requests).toHaveLength(2);
    for (const x of local.fake.requests) {
      expect(x.headers.authorization).toBeUndefined();
      expect(x.headers['x-api-key']).toBeUndefined();
      expect(x.headers['api-key']).toBeUndefined();
    }
  });
});
