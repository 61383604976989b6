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
