import { describe, expect, it } from 'vitest';
import { type ModelConfig, parseConfig } from '../config/config.js';
import type { ParsedRequest, WireFormat } from '../wire/format.js';
import { createAnalysisMemos } from './analysis-memo.js';
import { reuseFirst } from './reuse-first.js';
import type { PathDeps } from './route-plan.js';

// What reuse-first.ts does before it knows the conversation: a request that starts with no item
// of a conversation analysed lately has nothing to go first on, and the opening of its
// conversation (a hash of its pinned messages and its first user message, which can be megabytes)
// is never worked out here, synchronously, ahead of the count that works it out in slices.

const config = parseConfig(
  JSON.stringify({
    upstreams: { up: { base_url: 'http://127.0.0.1:9/v1' } },
    models: [
      { match: 'm', upstream: 'up', context_window: 10_000, max_output_tokens: 100, encoding: 'o200k_base', compaction: { strategy: 'summarize', summarizer: { model: 'm' } } },
    ],
  }),
  'test.json',
  {},
);
const model = config.models[0] as ModelConfig;

function formatOpening(opened: () => void): WireFormat<object, ParsedRequest> {
  return {
    itemsKey: 'messages',
    items: { route: 'chat' },
    compactable: (p: ParsedRequest) => (p.body as unknown as { messages: object[] }).messages,
    opening: () => {
      opened();
      return ['opening'];
    },
  } as unknown as WireFormat<object, ParsedRequest>;
}

describe('going upstream on the last decision', () => {
  it('never works out the opening of a conversation no memo starts like', async () => {
    let opened = 0;
    const messages = [{ role: 'user', content: 'x'.repeat(1000) }];
    const parsed = { body: { model: 'm', messages }, raw: Buffer.from('{}') } as unknown as ParsedRequest;
    const deps = { config, secret: 's'.repeat(32) } as unknown as PathDeps;
    const memos = createAnalysisMemos({ entries: 4, bytes: 1 << 20 });
    const caller = { kind: 'credential', credential: 'sk-a' } as never;
    const went = await reuseFirst(
      deps,
      formatOpening(() => opened++),
      { caller, conversation: undefined, arrival: undefined, parsed, model, bound: () => null, count: () => Promise.reject(new Error('not counted')) },
      memos,
    );
    expect(went).toBeUndefined();
    expect(opened).toBe(0);
  });
});
