import { createRequire } from 'node:module';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { describe, expect, it } from 'vitest';
import { buildRankTable, byteString } from './rank-table.js';

const requireRanks = createRequire(import.meta.url);

describe('buildRankTable', () => {
  it.each(['o200k_base', 'cl100k_base'])('holds exactly the ranks js-tiktoken builds for %s', (name) => {
    const bpe = requireRanks(`js-tiktoken/ranks/${name}`) as TiktokenBPE;
    const reference = (new Tiktoken(bpe) as unknown as { rankMap: Map<string, number> }).rankMap;
    const { ranks, longestToken } = buildRankTable(bpe);
    expect(ranks.size).toBe(reference.size);
    let longest = 0;
    for (const [key, rank] of ranks) {
      const commaKey = [...Buffer.from(key, 'latin1')].join(',');
      if (reference.get(commaKey) !== rank) expect.fail(`${name}: ${commaKey} is ${rank} here, ${reference.get(commaKey)} in js-tiktoken`);
      longest = Math.max(longest, commaKey.split(',').length);
    }
    expect(longestToken).toBe(longest);
  });

  it('refuses rank data it cannot read, instead of counting with an empty table', () => {
    expect(() => buildRankTable({ pat_str: '', special_tokens: {}, bpe_ranks: '' })).toThrow(/empty/);
    expect(() => buildRankTable({ pat_str: '', special_tokens: {}, bpe_ranks: '! x IQ==' })).toThrow(/unexpected/);
  });
});

describe('byteString', () => {
  it('is the UTF-8 bytes of the text, one Latin-1 character per byte', () => {
    for (const text of ['plain ascii', 'é', '我们', '😀 ok', '']) {
      expect(Buffer.from(byteString(text), 'latin1').equals(Buffer.from(text, 'utf8'))).toBe(true);
    }
  });
});
