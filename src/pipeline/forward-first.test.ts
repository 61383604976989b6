import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatPromptBound } from '../wire/chat/forward-bound.js';
import { type ChatBody, readChatRequest } from '../wire/chat/parse-request.js';
import { parseConfig } from '../config/config.js';
import { RECALL_TOOL_MAX_TOKENS } from '../recall/tool.js';
import { createSeenItems } from '../body/seen-items.js';
import { noPause } from '../slicing/slicer.js';
import { resolveBudget } from '../tokens/budget.js';
import { createTokenCounter, type TokenCounter } from '../tokens/counter.js';
import { namedConversation } from '../conversation/identify.js';
import { canForwardFirst } from './forward-first.js';

// A request is forwarded before it is counted only when it provably fits below both lines: the
// bound counts exactly what was counted before and the bytes of the rest, and never says yes to a
// request whose real count does not fit.

const config = parseConfig(
  JSON.stringify({
    upstreams: { a: { base_url: 'http://127.0.0.1:1/v1' } },
    models: [
      { match: 'small', upstream: 'a', context_window: 1200, max_output_tokens: 200, compaction: { strategy: 'window' }, recall: { enabled: false } },
      { match: 'est', upstream: 'a', context_window: 1200, max_output_tokens: 200, encoding: 'estimate', compaction: { strategy: 'window' }, recall: { enabled: false } },
      { match: 'recalling', upstream: 'a', context_window: 1200, max_output_tokens: 200, compaction: { strategy: 'window' } },
    ],
  }),
  'f',
  {},
);
const [small, est, recalling] = config.models;
const NAMES = ['x-conversation-id'];

/** The body as the request path reads it (messages seen before come back as the same objects). */
async function read(body: unknown, seen = createSeenItems(1 << 20)): Promise<ChatBody> {
  return readChatRequest(Buffer.from(JSON.stringify(body)), noPause, { seen });
}

/** Whether the request is forwarded before it is counted, below both lines (true) or not at all (false). */
function forwardsFirst(parsed: ChatBody, counter: TokenCounter, model = small, headers = {}): boolean | 'below the trigger' {
  const proof = canForwardFirst(parsed.body, () => chatPromptBound(parsed, counter), model, namedConversation(headers, NAMES));
  return proof === 'below the trigger' ? proof : proof !== null;
}

describe('canForwardFirst', () => {
  it('bounds messages counted before by their count and the others by their bytes', async () => {
    const seen = createSeenItems(1 << 20);
    const counter = createTokenCounter({ encoding: 'o200k_base' });
    const history = [{ role: 'system', content: 'be brief' }, ...Array.from({ length: 12 }, (_, i) => ({ role: 'user', content: `word ${i} `.repeat(12) }))];
    const body = { model: 'small', messages: history };
    const bytes = Buffer.byteLength(JSON.stringify(body));
    // 12 × 100 bytes of text: past the trigger (1,000) by its bytes, well below the prepare line (800) by its tokens.
    expect(bytes).toBeGreaterThan(1000);
    const first = await read(body, seen);
    expect(forwardsFirst(first, counter)).toBe(false);
    const counted = counter.countMessages(first.body.messages).total;
    expect(counted).toBeLessThan(600);
    // Sent again: the same message objects, counted before.
    expect(forwardsFirst(await read(body, seen), counter)).toBe(true);
    // One new message is bounded by its bytes: a long one tips it past a line.
    const past = (text: number) => ({ model: 'small', messages: [...history, { role: 'user', content: 'z'.repeat(text) }] });
    expect(forwardsFirst(await read(past(1000 - counted), seen), counter)).toBe(false);
    expect(forwardsFirst(await read(past(850 - counted), seen), counter)).toBe('below the trigger');
    expect(forwardsFirst(await read(past(100), seen), counter)).toBe(true);
  });

  it('has no bound for an image it did not count, and counts one it did', async () => {
    const seen = createSeenItems(1 << 20);
    const counter = createTokenCounter({ encoding: 'o200k_base' });
    const image = { model: 'small', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } }] }] };
    const first = await read(image, seen);
    expect(forwardsFirst(first, counter)).toBe(false);
    counter.countMessages(first.body.messages);
    expect(forwardsFirst(await read(image, seen), counter)).toBe(true);
  });

  it('counts first for oversized conversation ids, and takes room for definitions, calibration and recap_recall', async () => {
    const counter = createTokenCounter({ encoding: 'o200k_base' });
    const text = { model: 'small', messages: [{ role: 'user', content: 'x'.repeat(400) }] };
    const parsed = await read(text);
    expect(forwardsFirst(parsed, counter)).toBe(true);
    expect(forwardsFirst(parsed, counter, small, { 'x-conversation-id': 'x'.repeat(600) })).toBe(false);
    // Definitions not counted before are bounded by the whole body's bytes, which the budget loses too.
    const tools = { ...text, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] };
    expect(forwardsFirst(await read(tools), counter)).toBe('below the trigger');
    counter.countTools((await read(tools)).body);
    expect(forwardsFirst(await read(tools), counter)).toBe('below the trigger');
    const seen = createSeenItems(1 << 20);
    counter.countTools((await read(tools, seen)).body);
    expect(forwardsFirst(await read(tools, seen), counter)).toBe(true);
    // An estimate may be calibrated up to twice itself.
    expect(forwardsFirst(parsed, createTokenCounter({ encoding: 'estimate' }), est)).toBe('below the trigger');
    const longer = await read({ model: 'est', messages: [{ role: 'user', content: 'x'.repeat(500) }] });
    expect(forwardsFirst(longer, createTokenCounter({ encoding: 'estimate' }), est)).toBe(false);
    const proof = (messages: number) => canForwardFirst(parsed.body, () => ({ messages, definitions: 0 }), recalling, undefined);
    expect(proof(0.8 * (1000 - RECALL_TOOL_MAX_TOKENS))).toBe('below both lines');
    expect(proof(0.8 * (1000 - RECALL_TOOL_MAX_TOKENS) + 1)).toBe('below the trigger');
    expect(proof(1000 - RECALL_TOOL_MAX_TOKENS)).toBe('below the trigger');
    expect(proof(1000 - RECALL_TOOL_MAX_TOKENS + 1)).toBeNull();
    expect(canForwardFirst(parsed.body, () => null, undefined, undefined)).toBe('below both lines');
  });

  it('never forwards first a request whose real count passes the trigger, nor one past the prepare line as below both', async () => {
    const texts = ['hello world ', '日本語のテキストです。', '🙂🙃', 'x ', '{"a":[1,2,3]}', 'ünïcödé ', '\\"\n\t'];
    const message = fc.record({
      role: fc.constantFrom('user', 'assistant', 'system', 'tool'),
      content: fc.tuple(fc.constantFrom(...texts), fc.integer({ min: 1, max: 60 })).map(([t, n]) => t.repeat(n)),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 12 }), fc.nat({ max: 12 }), fc.boolean(), async (messages, countedBefore, withTools) => {
        const seen = createSeenItems(1 << 20);
        const counter = createTokenCounter({ encoding: 'o200k_base' });
        const tools = withTools ? { tools: [{ type: 'function', function: { name: 'lookup', description: 'find', parameters: { type: 'object' } } }] } : {};
        // Some of the history was counted by an earlier request.
        const earlier = await read({ model: 'small', messages: messages.slice(0, countedBefore), ...tools }, seen);
        counter.countMessages(earlier.body.messages);
        if (withTools) counter.countTools(earlier.body);
        const parsed = await read({ model: 'small', messages, ...tools }, seen);
        const proof = forwardsFirst(parsed, counter);
        if (!proof) return;
        const definitions = counter.countTools(parsed.body);
        const { budget } = resolveBudget(small!, parsed.body, definitions);
        expect(counter.countMessages(parsed.body.messages).total).toBeLessThanOrEqual((proof === true ? 0.8 : 1) * budget);
      }),
      { numRuns: 300 },
    );
  });
});
