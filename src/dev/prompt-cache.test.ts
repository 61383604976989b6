import { describe, expect, it } from 'vitest';
import { createPromptCache, type PromptBlock } from './prompt-cache.js';

const blocks = (...tokens: number[]): PromptBlock[] => tokens.map((t, i) => ({ key: `b${i}`, tokens: t }));

describe('automatic prompt caching (OpenAI)', () => {
  it('reads the longest prefix shared with a recent prompt, from 1,024 tokens in steps of 128', () => {
    const cache = createPromptCache({ mode: 'automatic' });
    expect(cache.send('m', blocks(1000, 500), 0)).toEqual({ prompt: 1500, cached: 0, written: 0 });
    // Shares 1,500 tokens: 1,024 + 3 × 128 = 1,408 are billed as cached.
    expect(cache.send('m', blocks(1000, 500, 700), 1000)).toEqual({ prompt: 2200, cached: 1408, written: 0 });
  });

  it('caches nothing under 1,024 shared tokens, nothing across models, nothing past the lifetime', () => {
    const cache = createPromptCache({ mode: 'automatic', ttlMs: 60_000 });
    cache.send('m', blocks(900, 100), 0);
    expect(cache.send('m', blocks(900, 50), 1).cached).toBe(0);
    cache.send('m', blocks(2000, 10), 2);
    expect(cache.send('other', blocks(2000, 10), 3).cached).toBe(0);
    expect(cache.send('m', blocks(2000, 20), 4).cached).toBe(1920);
    expect(cache.send('m', blocks(2000, 20), 4 + 60_001).cached).toBe(0);
  });

  it('a change in the middle keeps only what comes before it', () => {
    const cache = createPromptCache({ mode: 'automatic' });
    cache.send('m', blocks(2000, 3000, 4000), 0);
    const changed = blocks(2000, 3000, 4000);
    changed[1] = { key: 'summary', tokens: 500 };
    expect(cache.send('m', changed, 1).cached).toBe(1920);
  });
});

describe('breakpoint caching (Anthropic)', () => {
  const marked = (tokens: number[], marks: number[]): PromptBlock[] => blocks(...tokens).map((b, i) => ({ ...b, breakpoint: marks.includes(i) }));

  it('writes up to the last breakpoint, then reads the longest written prefix at a breakpoint', () => {
    const cache = createPromptCache({ mode: 'breakpoints' });
    expect(cache.send('m', marked([1500, 800, 700], [0, 2]), 0)).toEqual({ prompt: 3000, cached: 0, written: 3000 });
    // The next turn adds two blocks and moves its last breakpoint to the end: reads 3,000, writes 900.
    expect(cache.send('m', marked([1500, 800, 700, 400, 500], [0, 4]), 1000)).toEqual({ prompt: 3900, cached: 3000, written: 900 });
  });

  it('a rewritten middle falls back to the breakpoint before it', () => {
    const cache = createPromptCache({ mode: 'breakpoints' });
    cache.send('m', marked([1500, 800, 700], [0, 2]), 0);
    const rewritten = marked([1500, 300, 700], [0, 2]);
    rewritten[1] = { key: 'summary', tokens: 300 };
    expect(cache.send('m', rewritten, 1)).toEqual({ prompt: 2500, cached: 1500, written: 1000 });
  });

  it('expires an entry unused for the lifetime, and a read refreshes it', () => {
    const cache = createPromptCache({ mode: 'breakpoints', ttlMs: 300_000 });
    cache.send('m', marked([2000], [0]), 0);
    expect(cache.send('m', marked([2000], [0]), 200_000).cached).toBe(2000);
    expect(cache.send('m', marked([2000], [0]), 450_000).cached).toBe(2000);
    expect(cache.send('m', marked([2000], [0]), 800_000).cached).toBe(0);
  });
});
