import { describe, expect, it } from 'vitest';
import { ENCODING_NAMES, getTokenizer, preloadEncodings } from './encodings.js';

// Reference counts printed by OpenAI's cookbook "How to count tokens with tiktoken" (section 5,
// compare_encodings, and section 3 for "tiktoken is great!").
const COOKBOOK_COUNTS: Array<[string, number, number]> = [
  // text, cl100k_base, o200k_base
  ['tiktoken is great!', 6, 6],
  ['antidisestablishmentarianism', 6, 6],
  ['2 + 2 = 4', 7, 7],
  ['お誕生日おめでとう', 9, 8],
];

describe('encodings', () => {
  it.each(COOKBOOK_COUNTS)('counts %j like the cookbook', (text, cl100k, o200k) => {
    expect(getTokenizer('cl100k_base').count(text)).toBe(cl100k);
    expect(getTokenizer('o200k_base').count(text)).toBe(o200k);
  });

  it('counts special-token strings as plain text instead of throwing', () => {
    const o200k = getTokenizer('o200k_base');
    expect(o200k.count('<|endoftext|>')).toBeGreaterThan(1);
    expect(getTokenizer('cl100k_base').count('say <|im_start|> now')).toBeGreaterThan(3);
  });

  it('counts a pre-token over 256 bytes as its byte length, in linear time, and the text around it exactly', () => {
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const tokenizer = getTokenizer(name);
      // BPE on this one 200,000-letter word would run for hours.
      expect(tokenizer.count('x'.repeat(200_000))).toBe(200_000);
      // The space before a word belongs to its pre-token.
      const around = `hello world ${'é'.repeat(200)} bye`;
      expect(tokenizer.count(around)).toBe(tokenizer.count('hello world') + Buffer.byteLength(` ${'é'.repeat(200)}`) + tokenizer.count(' bye'));
      // Under the bound, counted as BPE counts it.
      expect(tokenizer.count('x'.repeat(256))).toBeLessThan(256);
    }
  });

  it('counts the empty text as zero tokens in every encoding', () => {
    for (const name of ENCODING_NAMES) expect(getTokenizer(name).count('')).toBe(0);
  });

  it('builds each tokenizer once and preloading returns the same instances', () => {
    preloadEncodings(['o200k_base', 'cl100k_base', 'estimate']);
    for (const name of ENCODING_NAMES) {
      expect(getTokenizer(name)).toBe(getTokenizer(name));
      expect(getTokenizer(name).name).toBe(name);
    }
  });
});
