import { describe, expect, it } from 'vitest';
import { costOf, inputCost, pricesOf } from './prices.js';

describe('prices', () => {
  it('turns prices per million into prices per token, with no discount where none is given', () => {
    expect(pricesOf({ input: 2, output: 8 })).toEqual({ input: 2e-6, cachedInput: 2e-6, cacheWrite: 2e-6, output: 8e-6 });
    expect(pricesOf({ input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 })).toEqual({ input: 3e-6, cachedInput: 0.3e-6, cacheWrite: 3.75e-6, output: 15e-6 });
  });

  it('prices a prompt by its cached, written and uncached parts', () => {
    const p = pricesOf({ input: 3, cached_input: 0.3, cache_write: 3.75, output: 15 });
    // 9,000 read at 0.30, 800 written at 3.75, 200 at 3.00, 100 out at 15 (per million).
    expect(costOf(p, { prompt: 10_000, cached: 9_000, written: 800, output: 100 })).toBeCloseTo((9000 * 0.3 + 800 * 3.75 + 200 * 3 + 100 * 15) / 1e6, 12);
  });

  it('never counts more cached or written tokens than the prompt holds', () => {
    const p = pricesOf({ input: 1, cached_input: 0.1, output: 1 });
    expect(inputCost(p, { prompt: 100, cached: 500, written: 0 })).toBeCloseTo(100 * 0.1e-6, 15);
  });
});
