import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createModelResolver, parseConfig } from '../../config/config.js';
import type { ChatMessage, ChatRequest } from '../../messages/types.js';
import { createMetrics } from '../../observability/metrics.js';
import { createTokenService } from '../../pipeline/token-service.js';
import { countChatRequest } from './count.js';

const CONFIG = `
# A token service per turn: its count cache is built for a few messages, not the default 100k
# entries (an LRU that large takes ~17 ms to allocate).
tokens: { cache_max_entries: 1000 }
upstreams:
  main: { base_url: "http://127.0.0.1:1/v1" }
models:
  - { match: "gpt-*", upstream: main, context_window: 128000, max_output_tokens: 4096 }
`;
const config = parseConfig(CONFIG, 'test.yaml', { RECAP_SECRET: 's'.repeat(32) });
const model = createModelResolver(config.models)('gpt-4o');

const request = (messages: ChatMessage[]): ChatRequest => ({ model: 'gpt-4o', messages });

describe('countChatRequest across turns', () => {
  it('gives every turn the counts and hashes a fresh process gives it, messages seen before (the same objects) or not', async () => {
    const text = fc.constantFrom('Hello there.', 'Hello there!', '你好，世界', 'x'.repeat(300), '');
    const message = fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: text }) as fc.Arbitrary<ChatMessage>;
    // A pool of message objects that turns pick from, as the cache of seen items hands a message back.
    const turns = fc.array(message, { minLength: 1, maxLength: 6 }).chain((pool) =>
      fc.array(
        fc.array(
          fc.nat({ max: pool.length - 1 }).map((i) => pool[i]!),
          { maxLength: 8 },
        ),
        { minLength: 2, maxLength: 4 },
      ),
    );
    await fc.assert(
      fc.asyncProperty(turns, async (requests) => {
        const serving = createTokenService(config, createMetrics());
        for (const messages of requests) {
          const seen = await countChatRequest(serving, request(messages), model);
          const fresh = await countChatRequest(createTokenService(config, createMetrics()), request(structuredClone(messages)), model);
          expect(seen.hashes).toEqual(fresh.hashes);
          expect(seen.perItem).toEqual(fresh.perItem);
          expect(seen.tokensIn).toBe(fresh.tokensIn);
        }
      }),
      { numRuns: 60 },
    );
  });
});
