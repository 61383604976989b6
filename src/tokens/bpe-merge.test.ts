import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergedTokenCount } from './bpe-merge.js';

// The oracle is js-tiktoken's own merge, transcribed: join the adjacent pair with the lowest rank,
// the leftmost on a tie, until no pair is a token.
function naiveCount(bytes: number[], ranks: Map<string, number>): number {
  const parts = bytes.map((_, i) => ({ start: i, end: i + 1 }));
  for (;;) {
    let best: [number, number] | null = null;
    for (let i = 0; i < parts.length - 1; i++) {
      const rank = ranks.get(bytes.slice(parts[i]!.start, parts[i + 1]!.end).join(','));
      if (rank !== undefined && (best === null || rank < best[0])) best = [rank, i];
    }
    if (best === null) return parts.length;
    const i = best[1];
    parts.splice(i, 2, { start: parts[i]!.start, end: parts[i + 1]!.end });
  }
}

const rankOf = (bytes: number[], ranks: Map<string, number>) => (start: number, end: number) => ranks.get(bytes.slice(start, end).join(','));

describe('mergedTokenCount', () => {
  it('merges the lowest rank first and the leftmost pair on a tie', () => {
    // "aaab": the two "aa" pairs tie; the left one merges, leaving "a"+"b" to merge: 2 tokens.
    // Merging the right one first would leave "a", "aa", "b": 3.
    const ranks = new Map([
      ['97,97', 0],
      ['97,98', 1],
    ]);
    expect(mergedTokenCount(4, rankOf([97, 97, 97, 98], ranks))).toBe(2);
    expect(naiveCount([97, 97, 97, 98], ranks)).toBe(2);
    // "abc": "bc" (rank 1) beats "ab" (rank 2), and then "a"+"bc" is not a token.
    const abc = new Map([
      ['98,99', 1],
      ['97,98', 2],
    ]);
    expect(mergedTokenCount(3, rankOf([97, 98, 99], abc))).toBe(2);
    expect(mergedTokenCount(0, () => undefined)).toBe(0);
    expect(mergedTokenCount(1, () => undefined)).toBe(1);
  });

  it('counts what the naive merge counts, for random rank tables and inputs', () => {
    // A tiny alphabet makes repeated pairs, ties and chains of merges common.
    const sequence = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 2, maxLength: 4 });
    const table = fc.uniqueArray(sequence, { selector: (s) => s.join(','), maxLength: 40 });
    fc.assert(
      fc.property(table, fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 40 }), (tokens, bytes) => {
        const ranks = new Map(tokens.map((t, rank) => [t.join(','), rank]));
        expect(mergedTokenCount(bytes.length, rankOf(bytes, ranks))).toBe(naiveCount(bytes, ranks));
      }),
      { numRuns: 1000, seed: 20261129 },
    );
  });
});
