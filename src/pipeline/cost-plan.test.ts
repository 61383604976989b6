import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { lowestTriggerRatio } from './cost-plan.js';

// The line a request must stay under to go upstream before it is counted: with prices, the lowest
// trigger the cost model can choose (the view it cuts to plus the least gap between cuts).

const models = parseConfig(
  JSON.stringify({
    upstreams: { a: { base_url: 'http://127.0.0.1:1/v1' } },
    models: [
      { match: 'tokens', upstream: 'a', context_window: 10_000, max_output_tokens: 1_000, compaction: { strategy: 'window' } },
      { match: 'priced', upstream: 'a', context_window: 10_000, max_output_tokens: 1_000, compaction: { strategy: 'window' }, pricing: { input: 1, cached_input: 0.1, output: 4 } },
      {
        match: 'tight',
        upstream: 'a',
        context_window: 10_000,
        max_output_tokens: 1_000,
        compaction: { strategy: 'window', trigger_ratio: 0.35, target_ratio: 0.2, cost: { view_ratio: 0.3, min_gap_ratio: 0.2 } },
        pricing: { input: 1, output: 4 },
      },
    ],
  }),
  'c',
  {},
).models;

describe('lowestTriggerRatio', () => {
  it('is the configured trigger without prices', () => {
    expect(lowestTriggerRatio(models[0]!)).toBe(1);
  });

  it('with prices, the cost view plus the least gap (0.3 + 0.1 by default)', () => {
    expect(lowestTriggerRatio(models[1]!)).toBeCloseTo(0.4, 12);
  });

  it('never above the configured trigger, and from the smaller of the cost view and the target', () => {
    expect(lowestTriggerRatio(models[2]!)).toBeCloseTo(0.35, 12);
  });
});
