import { afterEach, describe, expect, it } from 'vitest';
import { createPromptCache } from '../../dev/prompt-cache.js';
import { type FakeUpstream, startFakeUpstream } from '../../dev/fake-upstream.js';
import { inputCost, pricesOf } from '../../pricing/prices.js';
import { readSummarizerReply } from '../../summarizer/reply.js';
import { chatSharedPrefixBody } from './shared-prefix.js';

const long = (tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(300)}`;

// As recap forwards it: the client's spacing inside members, a number a JSON round trip would change.
const forwarded = Buffer.from(
  `{"model":"gpt-4o", "stream":true,"stream_options":{"include_usage":true},"seed":9007199254740993,` +
    `"tools":[{"type":"function","function":{"name":"read","parameters":{"type":"object"}}}],` +
    `"messages":[ {"role":"system","content":${JSON.stringify(long('system'))}},` +
    `{"role":"user","content":${JSON.stringify(long('task'))}},{"role":"assistant","content":${JSON.stringify(long('done'))}},` +
    `{"role":"user","content":"next step"} ],"max_tokens":4096}`,
);

describe('chatSharedPrefixBody', () => {
  it('is the forwarded body byte for byte up to the span end, then the instruction; only stream, its options, the limit the body uses and tool_choice change', () => {
    const built = chatSharedPrefixBody(forwarded, { keep: 3, instruction: 'Summarize the conversation so far.', tokenLimitField: 'max_completion_tokens', maxTokens: 800 });
    const text = built.toString();
    const spanEnd = forwarded.toString().indexOf(',{"role":"user","content":"next step"}');
    const messagesStart = forwarded.toString().indexOf('"messages":');
    expect(text).toContain(forwarded.subarray(messagesStart, spanEnd).toString());
    expect(text).toContain(`${forwarded.subarray(messagesStart, spanEnd)},{"role":"user","content":"Summarize the conversation so far."}]`);
    expect(text).not.toContain('next step');
    // Every member a summary call need not change is as forwarded, the unsafe integer included.
    expect(text).toContain('"model":"gpt-4o", "stream":false,"stream_options":null,"seed":9007199254740993,');
    expect(text).toContain('"tools":[{"type":"function","function":{"name":"read","parameters":{"type":"object"}}}]');
    expect(text.startsWith('{"tool_choice":"none",')).toBe(true);
    expect(text.endsWith('"max_tokens":800}')).toBe(true);
  });

  it('adds no stream and no tool_choice to a body that had neither stream nor tools, and the configured limit field to one that names none', () => {
    const plain = Buffer.from('{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}');
    const built = chatSharedPrefixBody(plain, { keep: 2, instruction: 'sum', tokenLimitField: 'max_completion_tokens', maxTokens: 100 });
    expect(built.toString()).toBe(
      '{"max_completion_tokens":100,"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"sum"}]}',
    );
    expect(() => chatSharedPrefixBody(plain, { keep: 3, instruction: 'sum', tokenLimitField: 'max_tokens', maxTokens: 1 })).toThrow(RangeError);
  });
});

describe('structured output', () => {
  it('asks for text where the body asks for JSON: the summary is prose', () => {
    const json = Buffer.from('{"model":"m","response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{}}},"messages":[{"role":"user","content":"a"}]}');
    expect(chatSharedPrefixBody(json, { keep: 1, instruction: 'sum', tokenLimitField: 'max_tokens', maxTokens: 9 }).toString()).toBe(
      '{"max_tokens":9,"model":"m","response_format":{"type":"text"},"messages":[{"role":"user","content":"a"},{"role":"user","content":"sum"}]}',
    );
  });
});

describe('a shared-prefix summarizer call on a caching upstream', () => {
  let upstream: FakeUpstream | undefined;
  afterEach(async () => {
    await upstream?.close();
    upstream = undefined;
  });

  it('reads the forwarded prefix from the cache, and is priced as cached input', async () => {
    // OpenAI-style automatic caching over the tools and each message, as the bench bills it.
    const cache = createPromptCache({ mode: 'automatic' });
    const blocksOf = (json: { tools?: unknown; messages: unknown[] }) =>
      [json.tools ?? [], ...json.messages].map((m) => {
        const key = JSON.stringify(m);
        return { key, tokens: Math.ceil(key.length / 4) };
      });
    upstream = await startFakeUpstream({
      promptTokens: (r) => blocksOf(r.json).reduce((n, b) => n + b.tokens, 0),
      cachedTokens: (r) => cache.send(r.json.model, blocksOf(r.json), r.receivedAt).cached,
    });
    const post = (body: Buffer) => fetch(`${upstream!.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(body) });
    await (await post(forwarded)).text();
    const built = chatSharedPrefixBody(forwarded, { keep: 3, instruction: 'Summarize the conversation so far.', tokenLimitField: 'max_completion_tokens', maxTokens: 800 });
    const res = await post(built);
    expect(res.headers.get('content-type')).toContain('application/json');
    const reply = readSummarizerReply(await res.text());
    if (!reply.ok) throw new Error(reply.detail);
    // What reached the upstream is the bytes built, and the forwarded request before it.
    expect(upstream.requests.map((r) => r.body)).toEqual([forwarded.toString(), built.toString()]);
    // The prefix (tools, system, the span's messages: ~2,000 tokens) came from the cache, in 128-token steps from 1,024.
    const prefix = blocksOf(JSON.parse(built.toString()))
      .slice(0, 4)
      .reduce((n, b) => n + b.tokens, 0);
    expect(prefix).toBeGreaterThan(1024 + 128);
    expect(reply.cachedTokens).toBe(1024 + Math.floor((prefix - 1024) / 128) * 128);
    const prices = pricesOf({ input: 1, cached_input: 0.1, output: 4 });
    const cost = inputCost(prices, { prompt: reply.promptTokens!, cached: reply.cachedTokens!, written: 0 });
    expect(cost).toBeCloseTo(((reply.promptTokens! - reply.cachedTokens!) * 1 + reply.cachedTokens! * 0.1) / 1_000_000, 12);
    expect(cost).toBeLessThan((reply.promptTokens! * 0.5) / 1_000_000);
  });
});
