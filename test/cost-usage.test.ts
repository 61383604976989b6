import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnthropicHarness, startAnthropicHarness } from './helpers/anthropic-harness.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 36: what the provider cached, read off its usage on every OpenAI route, JSON and stream,
// into the request's event and the metrics, priced at the model's `pricing`.

const KEY = 'sk-cost-usage-test';
const PROMPT = 10_000;
const CACHED = 8_192;
// $1 input, $0.10 cached, $4 output per million.
const PRICING = { input: 1, cached_input: 0.1, output: 4 };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: {},
    extra: { background: { enabled: false } },
    models: [{ match: 'gpt-test-priced', pricing: PRICING, compaction: { strategy: 'window' } }],
  });
  h.fake.setOptions({ promptTokens: () => PROMPT, cachedTokens: () => CACHED });
});
afterAll(async () => h.close());

async function post(path: string, conversation: string, body: object): Promise<string> {
  const r = await rawRequest(h.recap.url, {
    method: 'POST',
    target: path,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-conversation-id': conversation },
    body,
  });
  expect(r.status, r.body).toBe(200);
  return r.body;
}

async function eventOf(conversation: string, route: string): Promise<Record<string, number | string>> {
  let event: Record<string, number | string> | undefined;
  await waitFor(
    `${conversation}'s event`,
    async () => {
      const r = await rawRequest(h.recap.url, {
        method: 'GET',
        target: `/recap/v1/conversations/${conversation}/events?route=${route}`,
        headers: { authorization: `Bearer ${KEY}` },
      });
      event = r.status === 200 ? JSON.parse(r.body).events[0] : undefined;
      return event !== undefined;
    },
    5_000,
  );
  return event!;
}

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${h.recap.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const chat = { model: 'gpt-test-priced', messages: [{ role: 'user', content: 'hello there' }] };
const responses = { model: 'gpt-test-priced', input: [{ role: 'user', content: 'hello there' }] };

describe('cached tokens and cost, per route', () => {
  const cases: [string, string, object][] = [
    ['chat, JSON', '/v1/chat/completions', chat],
    ['chat, stream', '/v1/chat/completions', { ...chat, stream: true, stream_options: { include_usage: true } }],
    ['Responses, JSON', '/v1/responses', responses],
    ['Responses, stream', '/v1/responses', { ...responses, stream: true }],
  ];
  let counted = 0;
  it.each(cases)('%s: the event holds the cached tokens and the cost at the prices', async (name, path, body) => {
    const conversation = `cost-${name.replace(/\W+/g, '-')}`;
    const before = await metric('recap_cost_total{model="gpt-test-priced"}');
    await post(path, conversation, body);
    const event = await eventOf(conversation, path.includes('responses') ? 'responses' : 'chat');
    counted += CACHED;
    expect(event.cached_tokens).toBe(CACHED);
    const input = (CACHED * 0.1 + (PROMPT - CACHED) * 1) / 1e6;
    // The output is whatever the fake generated: at least one token at $4 per million.
    expect(event.cost).toBeGreaterThanOrEqual(input + 4e-6 - 1e-6);
    expect(event.cost).toBeLessThan(input + 0.01);
    // Forwarded as the client sent it: the same bill as sending everything.
    expect(event.cost_saved).toBe(0);
    expect(await metric('recap_cost_total{model="gpt-test-priced"}')).toBeCloseTo(before + (event.cost as number), 6);
    expect(await metric('recap_cached_tokens_total{model="gpt-test-priced"}')).toBe(counted);
  });
});

describe('cached tokens and cost on the Anthropic route', () => {
  let a: AnthropicHarness;
  beforeAll(async () => {
    a = await startAnthropicHarness({ model: { pricing: { input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 } }, extra: { background: { enabled: false } } });
  });
  afterAll(() => a.close());

  it.each([false, true])('stream %s: reads cache_read/cache_creation_input_tokens into the request log line and prices them', async (stream) => {
    const conversation = `cost-anthropic-${stream}`;
    // A system prompt long enough to cache, with a breakpoint: the second request reads what the first wrote.
    const body = {
      model: 'claude-test-1',
      max_tokens: 64,
      stream,
      system: [{ type: 'text', text: 'A long, stable system prompt about the payments platform. '.repeat(150), cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
    };
    const headers = { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'x-conversation-id': conversation };
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${a.recap.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      await res.text();
    }
    const [second] = a.fake.messagesRequests().slice(-1);
    const usage = JSON.parse(
      a.fake
        .sentBytes(second!)
        .toString('utf8')
        .match(/"usage":(\{[^}]*\})/)![1]!,
    ) as Record<string, number>;
    expect(usage.cache_read_input_tokens).toBeGreaterThan(0);
    // The request's log line (its event carries the same fields).
    let line: Record<string, number> | undefined;
    await waitFor(
      `${conversation}'s log line`,
      async () => {
        const lines = a.logs.lines.filter((l) => l.includes('"msg":"request"') && l.includes('/v1/messages')).map((l) => JSON.parse(l));
        line = lines.length >= 2 * (stream ? 2 : 1) ? lines.at(-1) : undefined;
        return line !== undefined;
      },
      5_000,
    );
    const event = { cached_tokens: line!.cachedTokens, cache_write_tokens: line!.cacheWriteTokens, cost: line!.cost };
    expect(event.cached_tokens).toBe(usage.cache_read_input_tokens);
    expect(event.cache_write_tokens).toBe(usage.cache_creation_input_tokens);
    const input = (usage.cache_read_input_tokens! * 0.3 + usage.cache_creation_input_tokens! * 3.75 + usage.input_tokens! * 3) / 1e6;
    expect(event.cost).toBeGreaterThan(input);
    expect(event.cost).toBeLessThan(input + 0.01);
  });
});
