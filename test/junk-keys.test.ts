import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../src/messages/types.js';
import { prose } from './helpers/conversation.js';
import { type FakeUpstream, startFakeUpstream } from '../src/dev/fake-upstream.js';
import { createLogger } from '../src/observability/logger.js';
import { type RunningRecap, startRecap } from '../src/main.js';
import { LogCapture, SUMMARIZER, smallModel, testConfig } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { dumpRedis } from './helpers/redis-dump.js';

// Issue 19: no clients configured, the model's upstream judges the caller's own key, and the
// summarizer runs on an upstream with recap's own api_key. Junk keys that the upstream refuses
// must not spend recap's key (they used to cost one summary each) nor leave records (a checkpoint
// used to be written after any status below 500).

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `junk${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const REAL = 'sk-a-key-the-upstream-accepts-0001';
const SUMMARIZER_KEY = 'sk-recap-summarizer-key-42';

let fake: FakeUpstream;
let recap: RunningRecap;
const logs = new LogCapture();
beforeAll(async () => {
  fake = await startFakeUpstream({ summarizerModel: SUMMARIZER });
  // The model's upstream checks the caller's key: the two real ones pass, anything else is a 401.
  fake.setDefault((req) => {
    const auth = String(req.headers.authorization);
    if (auth === `Bearer ${SUMMARIZER_KEY}` || auth.startsWith('Bearer sk-a-key-the-upstream-accepts-')) return undefined;
    return { status: 401 };
  });
  const config = testConfig(fake, {
    models: [smallModel({ summarizer: { model: SUMMARIZER, upstream: 'paid' } })],
    extra: {
      background: { enabled: false },
      store: { url: REDIS, key_prefix: PREFIX },
      // One server behind both names: the summarizer's with recap's own key, the model's with the caller's.
      upstreams: { fake: { base_url: fake.url }, paid: { base_url: fake.url, api_key: SUMMARIZER_KEY } },
    },
  });
  recap = await startRecap(config, { port: 0, host: '127.0.0.1', logger: createLogger('info', logs) });
});
afterAll(async () => {
  await recap?.close();
  await fake?.close();
});

function history(turns = 30): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: 'ops' }];
  for (let t = 1; t <= turns; t++) out.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: `ok ${t}` });
  out.push({ role: 'user', content: 'What now?' });
  return out;
}

const chat = (key: string, messages: ChatMessage[], conversation = 'c-1') =>
  rawRequest(recap.url, {
    target: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'x-conversation-id': conversation },
    body: { model: 'gpt-test-small', messages },
  });

describe('junk keys against an upstream that answers 401', () => {
  it("boot warns once of the open relay: an upstream with recap's key, no clients", () => {
    const warnings = logs.lines.filter((l) => l.includes('open relay'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, msg: expect.stringContaining('upstream "paid" has its own api_key and no clients are configured') });
    expect(logs.text).not.toContain(SUMMARIZER_KEY);
  });

  it('leave no record and cost no summarizer call', async () => {
    const calls = fake.summarizerRequests().length;
    for (let i = 0; i < 20; i++) {
      const r = await chat(`sk-junk-${i}-${Math.random().toString(36).slice(2)}`, history());
      expect(r.status).toBe(401);
    }
    expect(fake.summarizerRequests()).toHaveLength(calls);
    expect((await dumpRedis(REDIS, PREFIX)).keys).toEqual([]);
  });

  it('while a key the upstream accepted gets its summaries as before', async () => {
    // Its first request fits; the 2xx shows recap that the upstream takes this key.
    const small = await chat(REAL, history(3), 'real-conv');
    expect(small.status).toBe(200);
    const calls = fake.summarizerRequests().length;
    const r = await chat(REAL, history(), 'real-conv');
    expect(r.status).toBe(200);
    expect(r.headers['x-recap-action']).toBe('compacted');
    expect(fake.summarizerRequests()).toHaveLength(calls + 1);
    expect(fake.summarizerRequests().at(-1)!.headers.authorization).toBe(`Bearer ${SUMMARIZER_KEY}`);
  });

  it("degrades a key's first over-budget request before the upstream has accepted it, then compacts", async () => {
    const fresh = 'sk-a-key-the-upstream-accepts-0002';
    const calls = fake.summarizerRequests().length;
    const first = await chat(fresh, history(), 'fresh-conv');
    expect(first.status).toBe(200);
    expect(first.headers['x-recap-action']).toBe('degraded');
    expect(Number(first.headers['x-recap-tokens-out'])).toBeLessThanOrEqual(2700);
    expect(fake.summarizerRequests()).toHaveLength(calls);
    const second = await chat(fresh, history(), 'fresh-conv');
    expect(second.headers['x-recap-action']).toBe('compacted');
    expect(fake.summarizerRequests()).toHaveLength(calls + 1);
  });
});
