import { describe, expect, it } from 'vitest';
import { pricesOf } from '../pricing/prices.js';
import { type CostModel, costLines, expectedCalls, newestTurnTokens, summarizerCost, weighCompaction } from './cost.js';
import type { Layout } from './layout.js';
import { segment } from './units.js';

// Prices per million: a model at $1 input, $0.10 cached (0.1×), $4 output; a summarizer at a fifth of it.
const model = pricesOf({ input: 1, cached_input: 0.1, output: 4 });
const mini = pricesOf({ input: 0.2, cached_input: 0.02, output: 0.8 });
const separate: CostModel = { prices: model, summarizer: mini, sharedPrefix: false };

describe('weighCompaction (hand-worked)', () => {
  it('a compaction that pays: 80k → 20k, 360 calls so far (40 more with a chance of nine in ten)', () => {
    // saves = 40 calls × 60,000 tokens × $0.10/M = $0.24
    // costs = re-read (1.0 − 0.1) × (20,000 − 2,000) = $0.0162, summarizer (62,000 + 300) × 0.2 + 1,000 × 0.8 = $0.01326
    const f = weighCompaction(separate, {
      view: 80_000,
      after: 20_000,
      unchanged: 2_000,
      evicted: 62_000,
      summaryTokens: 1_000,
      window: 120_000,
      growth: 1_000,
      calls: 360,
      first: false,
    });
    expect(f.calls).toBe(40);
    expect(f.saves).toBeCloseTo(0.24, 9);
    expect(f.costs).toBeCloseTo(0.0162 + 0.01326, 9);
    expect(f.verdict).toBe('pays');
  });

  it('one that does not: the same cut early in a conversation (27 calls so far: 3 more) saves less than it costs', () => {
    // saves = 3 × 60,000 × 0.1/M = $0.018 < costs $0.02946: what is cut is cached anyway.
    const f = weighCompaction(separate, {
      view: 80_000,
      after: 20_000,
      unchanged: 2_000,
      evicted: 62_000,
      summaryTokens: 1_000,
      window: 120_000,
      growth: 1_000,
      calls: 27,
      first: false,
    });
    expect(f.calls).toBe(3);
    expect(f.saves).toBeCloseTo(0.018, 9);
    expect(f.verdict).toBe('does_not_pay');
  });

  it('one the window forces: over the window it is compacted whatever it costs', () => {
    const f = weighCompaction(separate, {
      view: 125_000,
      after: 20_000,
      unchanged: 2_000,
      evicted: 107_000,
      summaryTokens: 1_000,
      window: 120_000,
      growth: 1_000,
      calls: 2,
      first: false,
    });
    expect(f.saves).toBeLessThan(f.costs);
    expect(f.verdict).toBe('window');
  });

  it('without caching the re-read costs nothing extra: only the summarizer is weighed', () => {
    const flat: CostModel = { prices: pricesOf({ input: 1, output: 4 }), summarizer: mini, sharedPrefix: false };
    const f = weighCompaction(flat, {
      view: 30_000,
      after: 20_000,
      unchanged: 2_000,
      evicted: 10_000,
      summaryTokens: 1_000,
      window: 120_000,
      growth: 1_000,
      calls: 90,
      first: false,
    });
    expect(f.costs).toBeCloseTo(summarizerCost(flat, 30_000, 10_000, 1_000), 12);
    expect(f.saves).toBeCloseTo(10 * 10_000 * 1e-6, 12);
  });

  it('a summarizer sharing the prefix reads the cached view at the cached price and writes at the model’s output price', () => {
    const shared: CostModel = { ...separate, sharedPrefix: true };
    // 80,000 × 0.1 + 300 × 1 + 1,000 × 4 (per million)
    expect(summarizerCost(shared, 80_000, 62_000, 1_000)).toBeCloseTo((8_000 + 300 + 4_000) / 1e6, 12);
  });
});

describe('a summarizer sharing the prefix, weighed', () => {
  it('reads the pinned block and the span from the cache: the same cut costs less than calling the same model apart', () => {
    const w = { view: 80_000, after: 20_000, unchanged: 2_000, evicted: 62_000, summaryTokens: 1_000, window: 120_000, growth: 1_000, calls: 360, first: false };
    const own = { prices: model, summarizer: model };
    const shared = weighCompaction({ ...own, sharedPrefix: true }, w);
    // re-read (1.0 − 0.1) × 18,000 + (2,000 + 62,000) × 0.1 + 300 × 1 + 1,000 × 4 (per million)
    expect(shared.costs).toBeCloseTo((16_200 + 6_400 + 300 + 4_000) / 1e6, 12);
    expect(shared.costs).toBeLessThan(weighCompaction({ ...own, sharedPrefix: false }, w).costs);
  });
});

describe('expectedCalls', () => {
  it('is the fewer of the calls the window leaves and a ninth of the calls made so far', () => {
    expect(expectedCalls({ after: 20_000, window: 120_000, growth: 2_000, calls: 500, first: false })).toBe(50);
    expect(expectedCalls({ after: 20_000, window: 120_000, growth: 2_000, calls: 63, first: false })).toBe(7);
    expect(expectedCalls({ after: 119_500, window: 120_000, growth: 2_000, calls: 7, first: false })).toBe(1);
  });
});

describe('a conversation’s first cut', () => {
  // It risks money the conversation has not saved yet: sending everything would have cost no more.
  const w = { view: 80_000, after: 20_000, unchanged: 2_000, evicted: 62_000, summaryTokens: 1_000, window: 120_000, growth: 1_000, calls: 360, first: true };

  it('counts the call in hand only: the cut that pays over 40 expected calls later in a conversation does not pay as its first', () => {
    // saves = 1 × 60,000 × 0.1/M = $0.006 < costs $0.02946
    const f = weighCompaction(separate, w);
    expect(f.calls).toBe(1);
    expect(f.saves).toBeCloseTo(0.006, 9);
    expect(f.verdict).toBe('does_not_pay');
    expect(weighCompaction(separate, { ...w, first: false }).verdict).toBe('pays');
  });

  it('is made when it pays back on that call (no caching: nothing to re-read, 60,000 tokens at the full price against the summarizer)', () => {
    const flat: CostModel = { prices: pricesOf({ input: 1, output: 4 }), summarizer: mini, sharedPrefix: false };
    expect(weighCompaction(flat, w).verdict).toBe('pays');
  });

  it('is made when the window forces it, whatever it costs', () => {
    expect(weighCompaction(separate, { ...w, view: 125_000, evicted: 107_000 }).verdict).toBe('window');
  });

  it('sits at the window when cached input is cheap, and stays low where caching is dear', () => {
    const lines = { window: 120_000, floor: 24_000, target: 72_000, stable: 2_000, summaryTokens: 1_000, growth: 1_000, calls: 200, minGap: 6_000 };
    expect(costLines(separate, { ...lines, first: true }).trigger).toBe(120_000);
    expect(costLines(separate, { ...lines, first: false }).trigger).toBeLessThan(120_000);
    const flat: CostModel = { prices: pricesOf({ input: 1, output: 4 }), summarizer: mini, sharedPrefix: false };
    expect(costLines(flat, { ...lines, first: true }).trigger).toBeLessThan(120_000);
  });
});

describe('costLines', () => {
  const lines = { window: 120_000, floor: 24_000, target: 72_000, stable: 2_000, summaryTokens: 1_000, growth: 1_000, calls: 200, first: false, minGap: 6_000 };

  it('aims at the floor, and cuts later the cheaper caching is', () => {
    const at = (cached: number) => costLines({ prices: pricesOf({ input: 1, cached_input: cached, output: 4 }), summarizer: mini, sharedPrefix: false }, lines);
    const tenth = at(0.1);
    const half = at(0.5);
    const none = at(1);
    expect(tenth.target).toBe(24_000);
    expect(tenth.trigger).toBeGreaterThan(half.trigger);
    expect(half.trigger).toBeGreaterThan(none.trigger);
    // At 0.1×: F = 0.9 × 23,000 + (1,000 + 300) × 0.2 + 1,000 × 0.8 = 21,760 µ$; H* = √(2 × 21,760 × 1,000 / 0.1) ≈ 20,861.
    expect(tenth.trigger).toBeCloseTo(24_000 + Math.sqrt((2 * 21_760 * 1_000) / 0.1), 0);
    // Without caching only the summarizer's fixed part is paid per cut: the gap between cuts is the minimum.
    expect(none.trigger).toBe(24_000 + 6_000);
  });

  it('never above the window; the window alone when a cut cannot pay back in the calls expected', () => {
    const short = costLines(separate, { ...lines, calls: 1 });
    expect(short.trigger).toBe(120_000);
    const free = costLines({ prices: pricesOf({ input: 1, cached_input: 0, output: 4 }), summarizer: mini, sharedPrefix: false }, lines);
    expect(free.trigger).toBe(120_000);
  });

  it('the target is never above the configured one', () => {
    expect(costLines(separate, { ...lines, floor: 90_000 }).target).toBe(72_000);
  });
});

describe('newestTurnTokens', () => {
  const item = (kind: 'user' | 'assistant' | 'result' | 'instruction') => ({
    kind,
    calls: kind === 'assistant' ? [{ id: 'c', name: 't' }] : [],
    resultOf: kind === 'result' ? 'c' : null,
  });
  const layout = (kinds: ('user' | 'assistant' | 'result')[], tokens: number[]): Layout => {
    const seg = segment(
      kinds.map((k) => item(k)),
      () => false,
    );
    return { seg, tokens, fixedTokens: 100, stubTokens: () => 5 };
  };

  it('is the last assistant turn and what follows it', () => {
    expect(newestTurnTokens(layout(['user', 'assistant', 'result', 'assistant', 'result', 'result'], [10, 20, 30, 40, 50, 60]))).toBe(150);
    expect(newestTurnTokens(layout(['user', 'assistant', 'assistant', 'result', 'user'], [10, 20, 30, 40, 50]))).toBe(140);
  });

  it('is the whole prompt before the first reply', () => {
    expect(newestTurnTokens(layout(['user'], [10]))).toBe(110);
  });
});
