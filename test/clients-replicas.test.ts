import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../src/messages/types.js';
import { type FakeUpstream, startFakeUpstream } from '../src/dev/fake-upstream.js';
import { prose } from './helpers/conversation.js';
import { SUMMARIZER, smallModel, testConfig } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { type RecapProcess, startRecapProcesses, writeConfigFile } from './helpers/recap-process.js';
import { dumpRedis } from './helpers/redis-dump.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 19 across replicas: two recap processes sharing one Redis. A tenant's summarizer allowance
// is one allowance however many processes serve it (it used to be one per process), and client
// tenants are the same tenant on every replica, apart from every other client.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ALPHA = 'ck-alpha-1c3e5a7b9d2f4a6c8e0b1d3f5a7c9e2b';
const BRAVO = 'ck-bravo-9e7c5a3f1d8b6e4c2a0f9d7b5e3c1a8f';
const METERED = 'ck-metered-5b3d1f9e7c5a3b1d9f7e5c3a1b9d7f5e';

function history(marker: string): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: 'You help the ops team.' }];
  for (let t = 1; t <= 30; t++) out.push({ role: 'user', content: `${prose(t)} ${marker}-${t}.` }, { role: 'assistant', content: `ok ${t}` });
  out.push({ role: 'user', content: 'What now?' });
  return out;
}

async function chat(p: RecapProcess, key: string, conversation: string, messages: ChatMessage[]) {
  const r = await rawRequest(p.url, {
    target: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'x-conversation-id': conversation },
    body: { model: 'gpt-test-small', messages },
  });
  expect(r.status).toBe(200);
  return r.headers['x-recap-action'];
}

const metric = async (p: RecapProcess, series: string) => {
  const line = (await (await fetch(`${p.url}/metrics`)).text()).split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

/** Two processes of one config on one Redis prefix, and the fake upstream they share. */
function replicas(extra: Record<string, unknown>, apiKey?: string) {
  const env = { fake: undefined as unknown as FakeUpstream, one: undefined as unknown as RecapProcess, two: undefined as unknown as RecapProcess, prefix: '' };
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    env.fake = await startFakeUpstream({ summarizerModel: SUMMARIZER });
    env.prefix = `rep${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
    const config = testConfig(env.fake, { apiKey, models: [smallModel()], extra: { background: { enabled: false }, store: { url: REDIS, key_prefix: env.prefix }, ...extra } });
    const file = await writeConfigFile(config);
    cleanup = file.cleanup;
    [env.one, env.two] = await startRecapProcesses([file.file, file.file]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([env.one?.stop(), env.two?.stop()]);
    await env.fake?.close();
    await cleanup?.();
  });
  return env;
}

describe('background.tenant_tokens_per_window, without clients', () => {
  const r = replicas({ background: { enabled: false, tenant_tokens_per_window: 100 } });

  it('holds across two processes: once a tenant spent it on one, the other falls back to window', async () => {
    const key = 'sk-tenant-with-an-allowance-01';
    expect(await chat(r.one, key, 'first', history('ONE'))).toBe('compacted');
    const calls = r.fake.summarizerRequests().length;
    expect(calls).toBe(1);
    // Another conversation of the same tenant, on the other process: no summarizer call.
    expect(await chat(r.two, key, 'second', history('TWO'))).toBe('compacted');
    expect(r.fake.summarizerRequests()).toHaveLength(calls);
    expect(await metric(r.two, 'recap_tenant_budget_exceeded_total')).toBe(1);
    // Another tenant still has its own allowance.
    expect(await chat(r.two, 'sk-another-tenant-02', 'second', history('TWO'))).toBe('compacted');
    expect(r.fake.summarizerRequests()).toHaveLength(calls + 1);
  });
});

describe('configured clients on two processes', () => {
  const r = replicas(
    {
      clients: [
        { name: 'alpha', key: ALPHA },
        { name: 'bravo', key: BRAVO },
        { name: 'metered', key: METERED, tenant_tokens_per_window: 100 },
      ],
    },
    'sk-upstream-own-key-5e1d7c9b3a',
  );

  it('refuse a missing or unknown key on either process, forwarding and storing nothing', async () => {
    for (const p of [r.one, r.two]) {
      for (const headers of [{}, { authorization: 'Bearer ck-nobody-00000000000000000000000000000' }] as Record<string, string>[]) {
        const res = await rawRequest(p.url, { target: '/v1/chat/completions', headers, body: { model: 'gpt-test-small', messages: history('NOBODY') } });
        expect(res.status).toBe(401);
      }
    }
    expect(r.fake.requests).toEqual([]);
    expect((await dumpRedis(REDIS, r.prefix)).keys).toEqual([]);
  });

  it("share one client's records across processes, and never another client's", async () => {
    expect(await chat(r.one, ALPHA, 'ticket-1', history('ALPHA'))).toBe('compacted');
    // Written once the reply reached the client: a reader right after may be first.
    const inspect = (key: string) => rawRequest(r.one.url, { target: '/recap/v1/conversations/ticket-1', headers: { authorization: `Bearer ${key}` } });
    await waitFor('the checkpoint', async () => (await inspect(ALPHA)).status === 200, 5_000);
    // The same client on the other replica reuses its checkpoint.
    expect(await chat(r.two, ALPHA, 'ticket-1', history('ALPHA'))).toBe('reused');
    const seen = await rawRequest(r.two.url, { target: '/recap/v1/conversations/ticket-1', headers: { authorization: `Bearer ${BRAVO}` } });
    expect(seen.status).toBe(404);
    const calls = r.fake.summarizerRequests().length;
    expect(await chat(r.two, BRAVO, 'ticket-1', history('ALPHA'))).toBe('compacted');
    expect(r.fake.summarizerRequests()).toHaveLength(calls + 1);
  });

  it("hold a client's own allowance across processes, leaving the others unmetered", async () => {
    const calls = r.fake.summarizerRequests().length;
    expect(await chat(r.one, METERED, 'm-1', history('METERED'))).toBe('compacted');
    expect(r.fake.summarizerRequests()).toHaveLength(calls + 1);
    expect(await chat(r.two, METERED, 'm-2', history('METERED-2'))).toBe('compacted');
    expect(r.fake.summarizerRequests()).toHaveLength(calls + 1);
    expect(await chat(r.two, ALPHA, 'a-2', history('ALPHA-2'))).toBe('compacted');
    expect(r.fake.summarizerRequests()).toHaveLength(calls + 2);
  });
});
