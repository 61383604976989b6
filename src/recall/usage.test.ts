import { describe, expect, it } from 'vitest';
import { sumUsage } from './usage.js';

describe('sumUsage', () => {
  it('sums every count, nested details included, and keeps what only one hop reports', () => {
    const a = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, prompt_tokens_details: { cached_tokens: 50 } };
    const b = { prompt_tokens: 130, completion_tokens: 20, total_tokens: 150, prompt_tokens_details: { cached_tokens: 90 }, completion_tokens_details: { reasoning_tokens: 4 } };
    expect(sumUsage(a, b)).toEqual({
      prompt_tokens: 230,
      completion_tokens: 30,
      total_tokens: 260,
      prompt_tokens_details: { cached_tokens: 140 },
      completion_tokens_details: { reasoning_tokens: 4 },
    });
    expect(sumUsage(undefined, b)).toBe(b);
    expect(sumUsage(a, undefined)).toBe(a);
  });
});
