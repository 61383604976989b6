import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createModelResolver, parseConfig } from '../config/config.js';
import type { ChatMessage, ChatRequest } from '../messages/types.js';
import { createMetrics } from '../observability/metrics.js';
import { countRequest, createTokenService } from './token-service.js';

const CONFIG = `
upstreams:
  main: { base_url: "http://127.0.0.1:1/v1" }
models:
  - { match: "gpt-*", upstream: main, context_window: 128000, max_output_tokens: 4096 }
`;
const config = parseConfig(CONFIG, 'test.yaml', { RECAP_SECRET: 's'.repeat(32) });
const model = createModelResolver(config.models)('gpt-4o');

const request = (messages: ChatMessage[]): ChatRequest => ({ model: 'gpt-4o', messages });

describe('countRequest with the conversation memo', () => {
  it('gives every turn the counts and hashes a fresh process gives it, across edits, inserts and removals', async () => {
    const text = fc.constantFrom('Hello there.', 'Hello there!', '你好，世界', 'x'.repeat(300), '');
    const message = fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: text }) as fc.Arbitrary<ChatMessage>;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(message, { maxLength: 8 }), { minLength: 2, maxLength: 4 }), async (turns) => {
        const remembering = createTokenService(config, createMetrics());
        for (const messages of turns) {
          const withMemo = await countRequest(remembering, request(messages), model, 'tenant.conversation');
          const fresh = await countRequest(createTokenService(config, createMetrics()), request(messages), model);
          expect(withMemo.hashes).toEqual(fresh.hashes);
          expect(withMemo.perMessage).toEqual(fresh.perMessage);
          expect(withMemo.tokensIn).toBe(fresh.tokensIn);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('remembers each request of a conversation for its next turn', async () => {
    const tokens = createTokenService(config, createMetrics());
    const messages: ChatMessage[] = [{ role: 'user', content: 'a fairly ordinary question about caching' }];
    const first = await countRequest(tokens, request(messages), model, 'tenant.conversation');
    expect(tokens.memo.recall('tenant.conversation', 'o200k_base', messages)).toEqual({ hashes: first.hashes, tokens: first.perMessage });
  });
});
