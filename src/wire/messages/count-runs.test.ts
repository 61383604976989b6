import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchOnArrival } from '../../body/items-on-arrival.js';
import { createSeenItems } from '../../body/seen-items.js';
import { createModelResolver, parseConfig } from '../../config/config.js';
import { createMetrics } from '../../observability/metrics.js';
import { createTokenService } from '../../pipeline/token-service.js';
import { noPause } from '../../slicing/slicer.js';
import { countMessagesRequest } from './count.js';
import { messagesFormat } from './format.js';
import type { MessagesRequest } from './types.js';

// Messages a request takes over from an earlier one's run (body/item-runs.ts) come with the
// hashes, counts and media tokens noted then: every turn counts as a fresh process counts it.

const CONFIG = `
# A token service per turn: its count cache is built for a few messages, not the default 100k
# entries (an LRU that large takes ~17 ms to allocate).
tokens: { cache_max_entries: 1000 }
upstreams:
  main: { base_url: "http://127.0.0.1:1/v1", api: anthropic }
models:
  - { match: "claude-*", upstream: main, context_window: 200000, max_output_tokens: 4096 }
`;
const config = parseConfig(CONFIG, 'test.yaml', { RECAP_SECRET: 's'.repeat(32) });
const model = createModelResolver(config.models)('claude-test');

const messageOf = (i: number, kind: number): string => {
  if (kind === 0) return JSON.stringify({ role: 'user', content: `question ${i} `.repeat(1 + (i % 4)) });
  if (kind === 1) return JSON.stringify({ role: 'assistant', content: [{ type: 'tool_use', id: `tu_${i}`, name: 'read', input: { path: `/src/${i}` } }] });
  if (kind === 2) return JSON.stringify({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu_${i}`, content: `line ${i}\n`.repeat(5) }] });
  return JSON.stringify({
    role: 'user',
    content: [
      { type: 'image', source: { type: 'url', url: `https://example.com/${i}.png` } },
      { type: 'text', text: 'what is it?' },
    ],
  });
};

describe('countMessagesRequest with messages taken over in a run', () => {
  it('gives every turn the counts and hashes a fresh process gives it', async () => {
    const turn = fc.array(fc.record({ n: fc.nat({ max: 30 }), kind: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 2, maxLength: 5 }), fc.nat({ max: 3 }), async (turns, back) => {
        const seen = createSeenItems(1 << 24);
        const serving = createTokenService(config, createMetrics());
        let history: string[] = [];
        for (const [t, added] of turns.entries()) {
          // Grows the history, and once goes back a few messages and branches off.
          if (t === 2) history = history.slice(0, Math.max(0, history.length - back));
          history = [...history, ...added.map(({ n, kind }) => messageOf(n, kind))];
          const raw = Buffer.from(`{"model":"claude-test","max_tokens":100,"messages":[${history.join(',')}]}`);
          const arriving = matchOnArrival(seen, 'messages');
          arriving.advance(raw, raw.length);
          const parsed = await messagesFormat.read(raw, noPause, { seen, arrived: arriving });
          const counted = await countMessagesRequest(serving, parsed.body, model, parsed.run);
          const fresh = await countMessagesRequest(createTokenService(config, createMetrics()), JSON.parse(raw.toString()) as MessagesRequest, model);
          expect(counted.hashes).toEqual(fresh.hashes);
          expect(counted.perItem).toEqual(fresh.perItem);
          expect(counted.tokensIn).toBe(fresh.tokensIn);
          if (t > 0 && t !== 2) expect(parsed.run?.taken).toBeGreaterThan(0);
        }
      }),
      { numRuns: 30 },
    );
  });
});
