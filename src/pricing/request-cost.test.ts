import { describe, expect, it } from 'vitest';
import { pricesOf } from './prices.js';
import { requestCost } from './request-cost.js';

const openai = pricesOf({ input: 2, cached_input: 0.5, output: 8 });
const anthropic = pricesOf({ input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 });

describe('requestCost', () => {
  it('a request forwarded as sent saves nothing: its baseline is what it cost', () => {
    const r = requestCost({
      prices: openai,
      usage: { promptTokens: 50_000, cachedTokens: 48_000, outputTokens: 100 },
      summarizerCost: 0,
      clientTokens: 50_000,
      sentTokens: 50_000,
      newTokens: 2_000,
      asSent: true,
    });
    expect(r.cost).toBeCloseTo((48_000 * 0.5 + 2_000 * 2 + 100 * 8) / 1e6, 12);
    expect(r.saved).toBe(0);
  });

  it('a compacted request is measured against the whole prompt with all but its newest turn cached', () => {
    // Sent 20,000 (4,000 of them cached), the client had 100,000 of which 2,000 are its newest turn; 1 µ$ of summarizer.
    const r = requestCost({
      prices: openai,
      usage: { promptTokens: 20_000, cachedTokens: 4_000, outputTokens: 100 },
      summarizerCost: 1e-6,
      clientTokens: 100_000,
      sentTokens: 20_000,
      newTokens: 2_000,
      asSent: false,
    });
    const cost = (4_000 * 0.5 + 16_000 * 2 + 100 * 8) / 1e6 + 1e-6;
    const baseline = (98_000 * 0.5 + 2_000 * 2 + 100 * 8) / 1e6;
    expect(r.cost).toBeCloseTo(cost, 12);
    expect(r.baseline).toBeCloseTo(baseline, 12);
    expect(r.saved).toBeCloseTo(baseline - cost, 12);
  });

  it('scales its estimates into the upstream’s units, and caches nothing where the provider reports no caching', () => {
    // The upstream counts 10% more than recap's estimate; no cached field: nothing is taken as cached.
    const r = requestCost({
      prices: openai,
      usage: { promptTokens: 11_000, outputTokens: 0 },
      summarizerCost: 0,
      clientTokens: 30_000,
      sentTokens: 10_000,
      newTokens: 1_000,
      asSent: false,
    });
    expect(r.baseline).toBeCloseTo((33_000 * 2) / 1e6, 12);
  });

  it('where the provider reports writes, the baseline writes its newest turn at the write price', () => {
    const r = requestCost({
      prices: anthropic,
      usage: { promptTokens: 10_000, cachedTokens: 9_000, cacheWriteTokens: 1_000, outputTokens: 0 },
      summarizerCost: 0,
      clientTokens: 40_000,
      sentTokens: 10_000,
      newTokens: 1_000,
      asSent: false,
    });
    expect(r.cost).toBeCloseTo((9_000 * 0.3 + 1_000 * 3.75) / 1e6, 12);
    expect(r.baseline).toBeCloseTo((39_000 * 0.3 + 1_000 * 3.75) / 1e6, 12);
  });
});
