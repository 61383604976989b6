import fc from 'fast-check';
import { createRequire } from 'node:module';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { describe, expect, it } from 'vitest';
import { ENCODING_NAMES, getTokenizer, preloadEncodings } from './encodings.js';

const requireRanks = createRequire(import.meta.url);

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

  it('counts long pre-tokens exactly as js-tiktoken does, CJK runs and long words included', () => {
    const samples = [
      '我们今天讨论的是一个关于自然语言处理的问题它涉及分词和编码以及很多其他的技术细节'.repeat(8),
      'x'.repeat(1500),
      `hello world ${'é'.repeat(200)} bye`,
      `${'😀'.repeat(150)} and ${'a1b2'.repeat(200)}`,
      'antidisestablishmentarianism '.repeat(40),
    ];
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const reference = new Tiktoken(requireRanks(`js-tiktoken/ranks/${name}`) as TiktokenBPE);
      for (const text of samples) expect(getTokenizer(name).count(text), `${name}: ${text.slice(0, 20)}`).toBe(reference.encode(text, [], []).length);
    }
  });

  it('counts any text exactly as js-tiktoken does (generated from letters, digits, spaces, punctuation, accents, CJK, emoji and a lone surrogate)', () => {
    const pieces = ['a', 'Z', 'the', ' ', '  ', '\n', '\t', '7', '2024', "'s", "'LL", '.', ',', '!?', '-', '_', '(', 'é', 'Ω', '我们', '日', '😀', '👍🏽', '\u00a0', 'ü', '\ud83d'];
    const text = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join(''));
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const reference = new Tiktoken(requireRanks(`js-tiktoken/ranks/${name}`) as TiktokenBPE);
      fc.assert(
        fc.property(text, (t) => getTokenizer(name).count(t) === reference.encode(t, [], []).length),
        { numRuns: 400 },
      );
    }
  });

  it("counts a 200,000-letter word, which js-tiktoken's own merge would take hours over", () => {
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const tokens = getTokenizer(name).count('x'.repeat(200_000));
      expect(tokens).toBeGreaterThan(200_000 / 32);
      expect(tokens).toBeLessThan(200_000);
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
