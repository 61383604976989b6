import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeenItems, type SeenItems } from '../../body/seen-items.js';
import { createModelResolver, parseConfig } from '../../config/config.js';
import { createMetrics } from '../../observability/metrics.js';
import { createTokenService } from '../../pipeline/token-service.js';
import { noPause } from '../../slicing/slicer.js';
import { countMessagesRequest } from './count.js';
import { messagesPromptBound } from './forward-bound.js';
import { readMessagesRequest } from './parse-request.js';
import type { MessagesBody } from './recall.js';

// The bound forward-first relies on: never below what the route then counts (uncalibrated), for
// every kind of block and both the estimate Claude models count with and a real encoding, counted
// before or not; no bound for an image or a PDF it did not count.

const config = parseConfig(
  `
# A fresh token service per run: its count cache is built for a few items, not the default 100k
# entries (an LRU that large takes ~17 ms to allocate, 400 times over).
tokens: { cache_max_entries: 1000 }
upstreams:
  anthropic: { base_url: "http://127.0.0.1:1/v1", api: anthropic }
models:
  - { match: "claude-*", upstream: anthropic, context_window: 200000, max_output_tokens: 8192, encoding: estimate }
  - { match: "o200k-*", upstream: anthropic, context_window: 200000, max_output_tokens: 8192, encoding: o200k_base }
`,
  'test.yaml',
  { RECAP_SECRET: 's'.repeat(32) },
);
const resolve = createModelResolver(config.models);

async function read(body: unknown, seen: SeenItems): Promise<MessagesBody> {
  return readMessagesRequest(Buffer.from(JSON.stringify(body)), noPause, { seen });
}

const texts = ['hello world ', '日本語のテキストです。', '🙂🙃', 'x', '{"a":[1,2,3]}', 'ünïcödé ', '\\"\n\t', '', '12345 '];
const text = fc.tuple(fc.constantFrom(...texts), fc.integer({ min: 0, max: 30 })).map(([t, n]) => t.repeat(n));
const cache = fc.constantFrom({}, { cache_control: { type: 'ephemeral' } });
const textBlock = fc.tuple(text, cache).map(([t, c]) => ({ type: 'text', text: t, ...c }));
const block = fc.oneof(
  textBlock,
  fc.record({ type: fc.constant('thinking'), thinking: text, signature: fc.constantFrom('', 'EqQBCkYIBRgCKkA') }),
  fc.record({ type: fc.constant('redacted_thinking'), data: text }),
  fc.record({
    type: fc.constantFrom('tool_use', 'server_tool_use'),
    id: fc.constantFrom('toolu_1', ''),
    name: fc.constantFrom('', 'Read', 'web_search'),
    input: fc.oneof(fc.constant({}), fc.record({ path: text })),
  }),
  fc.record({ type: fc.constant('tool_result'), tool_use_id: fc.constantFrom('toolu_1', ''), content: fc.oneof(text, fc.array(textBlock, { maxLength: 3 })) }),
  fc.record({ type: fc.constant('document'), source: fc.record({ type: fc.constant('text'), media_type: fc.constant('text/plain'), data: text }) }),
  fc.constantFrom({ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }, { type: 'tool_use' }, { type: 'x' }, {}),
);
const message = fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.oneof(text, fc.array(block, { maxLength: 4 })) });
const system = fc.option(fc.oneof(text, fc.array(textBlock, { minLength: 1, maxLength: 3 })), { nil: undefined });

describe('the Messages prompt bound', () => {
  it('is never below the count, for any block counted before or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(message, { minLength: 1, maxLength: 10 }),
        fc.nat({ max: 10 }),
        system,
        fc.boolean(),
        fc.constantFrom('claude-x', 'o200k-x'),
        async (messages, countedBefore, sys, withTools, name) => {
          const model = resolve(name)!;
          const tokens = createTokenService(config, createMetrics());
          const counter = tokens.counterFor(model.encoding);
          const seen = createSeenItems(1 << 20);
          const tools = withTools ? { tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }] } : {};
          const body = (ms: unknown[]) => ({ model: name, max_tokens: 1024, messages: ms, ...(sys !== undefined ? { system: sys } : {}), ...tools });
          if (countedBefore > 0) {
            const earlier = await read(body(messages.slice(0, countedBefore)), seen);
            await countMessagesRequest(tokens, earlier.body, model, earlier.run);
          }
          const parsed = await read(body(messages), seen);
          const bound = messagesPromptBound(parsed, counter);
          expect(bound).not.toBeNull();
          // Uncalibrated: forward-first scales the bound by the most calibration may (2×) itself.
          const counted = await countMessagesRequest({ counterFor: tokens.counterFor, scaleFor: () => (n) => n }, parsed.body, model, parsed.run);
          expect(bound!.messages).toBeGreaterThanOrEqual(counted.tokensIn - counted.toolsTokens);
          expect(bound!.definitions).toBeGreaterThanOrEqual(counted.rawTools);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('counts what it counted before exactly, system blocks included, and has no bound for an image it did not count', async () => {
    const model = resolve('claude-x')!;
    const tokens = createTokenService(config, createMetrics());
    const counter = tokens.counterFor(model.encoding);
    const uncalibrated = { counterFor: tokens.counterFor, scaleFor: () => (n: number) => n };
    const seen = createSeenItems(1 << 20);
    const system = [{ type: 'text', text: 'You are Claude Code. '.repeat(30), cache_control: { type: 'ephemeral' } }];
    const history = Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `word ${i} `.repeat(40) }] }));
    const body = (ms: unknown[]) => ({ model: 'claude-x', max_tokens: 1024, system, messages: ms });
    const first = await read(body(history), seen);
    const byBytes = messagesPromptBound(first, counter)!.messages;
    const counted = await countMessagesRequest(uncalibrated, first.body, model, first.run);
    expect(byBytes).toBeGreaterThan(2 * counted.tokensIn);
    expect(messagesPromptBound(await read(body(history), seen), counter)!.messages).toBe(counted.tokensIn);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000003e8000003e8', 'hex').toString('base64');
    const image = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }] }],
    };
    const withImage = await read(body([...history, image]), seen);
    expect(messagesPromptBound(withImage, counter)).toBeNull();
    const imageCounted = await countMessagesRequest(uncalibrated, withImage.body, model, withImage.run);
    expect(messagesPromptBound(await read(body([...history, image]), seen), counter)!.messages).toBe(imageCounted.tokensIn);
  });
});
