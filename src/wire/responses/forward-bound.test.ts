import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeenItems, type SeenItems } from '../../body/seen-items.js';
import { createModelResolver, parseConfig } from '../../config/config.js';
import { createMetrics } from '../../observability/metrics.js';
import { createTokenService } from '../../pipeline/token-service.js';
import { noPause } from '../../slicing/slicer.js';
import { countResponsesRequest } from './count.js';
import { responsesPromptBound } from './forward-bound.js';
import { type ResponsesBody, readResponsesRequest } from './parse-request.js';

// The bound forward-first and reuse-first rely on: never below what the route then counts, for
// every kind of item, counted before or not; no bound for media it did not count.

const config = parseConfig(
  `
# A fresh token service per run: its count cache is built for a few items, not the default 100k
# entries (an LRU that large takes ~17 ms to allocate, 400 times over).
tokens: { cache_max_entries: 1000 }
upstreams:
  main: { base_url: "http://127.0.0.1:1/v1" }
models:
  - { match: "gpt-4o*", upstream: main, context_window: 128000, max_output_tokens: 4096 }
`,
  'test.yaml',
  { RECAP_SECRET: 's'.repeat(32) },
);
const model = createModelResolver(config.models)('gpt-4o')!;

async function read(body: unknown, seen: SeenItems): Promise<ResponsesBody> {
  return readResponsesRequest(Buffer.from(JSON.stringify(body)), noPause, { seen });
}

const texts = ['hello world ', '日本語のテキストです。', '🙂🙃', 'x', '{"a":[1,2,3]}', 'ünïcödé ', '\\"\n\t', ''];
const text = fc.tuple(fc.constantFrom(...texts), fc.integer({ min: 0, max: 30 })).map(([t, n]) => t.repeat(n));
const id = fc.constantFrom('', 'c', 'call_8f3a91d2');
const item = fc.oneof(
  fc.record({ type: fc.constantFrom('message', undefined), role: fc.constantFrom('user', 'assistant', 'system', 'developer'), content: text }),
  fc.record({
    type: fc.constant('message'),
    role: fc.constantFrom('user', 'assistant'),
    content: fc.array(fc.record({ type: fc.constantFrom('input_text', 'output_text'), text }), { maxLength: 4 }),
  }),
  fc.record({ type: fc.constant('function_call'), call_id: id, name: fc.constantFrom('', 'f', 'read_file'), arguments: text }),
  fc.record({ type: fc.constant('function_call_output'), call_id: id, output: fc.oneof(text, fc.record({ ok: fc.boolean(), lines: fc.array(text, { maxLength: 3 }) })) }),
  fc.record({ type: fc.constant('reasoning'), summary: fc.array(fc.record({ type: fc.constant('summary_text'), text }), { maxLength: 3 }), encrypted_content: text }),
  fc.record({ type: fc.constant('custom_tool_call'), call_id: id, name: fc.constantFrom('', 'apply_patch'), input: text }),
  fc.constantFrom({}, { content: 'x' }, { type: 'web_search_call', id: 'ws', status: 'completed' }, { type: 'item_reference', id: 'r' }),
);

describe('the Responses prompt bound', () => {
  it('is never below the count, for any item counted before or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { minLength: 1, maxLength: 10 }),
        fc.nat({ max: 10 }),
        fc.option(text, { nil: undefined }),
        fc.boolean(),
        async (input, countedBefore, instructions, withTools) => {
          const tokens = createTokenService(config, createMetrics());
          const counter = tokens.counterFor(model.encoding);
          const seen = createSeenItems(1 << 20);
          const tools = withTools ? { tools: [{ type: 'function', name: 'lookup', description: 'find', parameters: { type: 'object' } }] } : {};
          const body = (items: unknown[]) => ({ model: 'gpt-4o', input: items, ...(instructions !== undefined ? { instructions } : {}), ...tools });
          // Some of the history was counted by an earlier request.
          if (countedBefore > 0) {
            const earlier = await read(body(input.slice(0, countedBefore)), seen);
            await countResponsesRequest(tokens, earlier.body, model, earlier.run);
          }
          const parsed = await read(body(input), seen);
          const bound = responsesPromptBound(parsed, counter);
          expect(bound).not.toBeNull();
          const counted = await countResponsesRequest(tokens, parsed.body, model, parsed.run);
          expect(bound!.messages).toBeGreaterThanOrEqual(counted.tokensIn - counted.toolsTokens);
          expect(bound!.definitions).toBeGreaterThanOrEqual(counted.rawTools);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('counts what it counted before exactly, and has no bound for an image it did not count', async () => {
    const tokens = createTokenService(config, createMetrics());
    const counter = tokens.counterFor(model.encoding);
    const seen = createSeenItems(1 << 20);
    const history = Array.from({ length: 6 }, (_, i) => ({ role: 'user', content: `word ${i} `.repeat(40) }));
    const instructions = 'You are a coding agent. Keep answers short. '.repeat(20);
    const first = await read({ model: 'gpt-4o', instructions, input: history }, seen);
    const byBytes = responsesPromptBound(first, counter)!.messages;
    const counted = await countResponsesRequest(tokens, first.body, model, first.run);
    expect(byBytes).toBeGreaterThan(2 * counted.tokensIn);
    // The next request sends the same instructions as a new string: counted before all the same.
    expect(responsesPromptBound(await read({ model: 'gpt-4o', instructions, input: history }, seen), counter)!.messages).toBe(counted.tokensIn);
    const image = { role: 'user', content: [{ type: 'input_image', image_url: 'https://x.test/a.png', detail: 'high' }] };
    const withImage = await read({ model: 'gpt-4o', input: [...history, image] }, seen);
    expect(responsesPromptBound(withImage, counter)).toBeNull();
    await countResponsesRequest(tokens, withImage.body, model, withImage.run);
    expect(responsesPromptBound(await read({ model: 'gpt-4o', input: [...history, image] }, seen), counter)).not.toBeNull();
  });
});
