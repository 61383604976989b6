import { describe, expect, it } from 'vitest';
import { getTokenizer } from './encodings.js';
import { estimateTokens, isSegmentStart } from './estimate.js';
import { SAMPLES } from './samples.case.js';

describe('estimateTokens', () => {
  it.each(Object.entries(SAMPLES))('stays within its documented error against cl100k_base and o200k_base for %s', (_kind, text) => {
    const estimate = estimateTokens(text);
    const cl100k = getTokenizer('cl100k_base').count(text);
    const o200k = getTokenizer('o200k_base').count(text);
    expect(estimate / cl100k).toBeGreaterThanOrEqual(0.76);
    expect(estimate / cl100k).toBeLessThanOrEqual(1.2);
    expect(estimate / o200k).toBeGreaterThanOrEqual(0.85);
    expect(estimate / o200k).toBeLessThanOrEqual(1.6);
  });

  it('costs about one token per CJK, kana or hangul character', () => {
    expect(estimateTokens('中文字符')).toBe(4);
    expect(estimateTokens('ひらがなカタカナ')).toBe(8);
    expect(estimateTokens('한국어')).toBe(3);
  });

  it('costs short words one token each and long words more', () => {
    expect(estimateTokens('the cat sat')).toBe(3);
    expect(estimateTokens('internationalization')).toBe(4);
  });

  it('costs two tokens per emoji and nothing extra for joiners and variation selectors', () => {
    expect(estimateTokens('🚀')).toBe(2);
    expect(estimateTokens('❤️')).toBe(2);
    expect(estimateTokens('👩‍💻')).toBe(4);
  });

  it('counts lone whitespace as one token and nothing as zero', () => {
    expect(estimateTokens(' ')).toBe(1);
    expect(estimateTokens('')).toBe(0);
  });

  it('is additive over pieces cut at segment starts', () => {
    const text = Object.values(SAMPLES).join('\n\n');
    let cuts = 0;
    for (let p = 1; p < text.length; p += 7) {
      if (!isSegmentStart(text, p)) continue;
      cuts++;
      expect(estimateTokens(text.slice(0, p)) + estimateTokens(text.slice(p))).toBe(estimateTokens(text));
    }
    expect(cuts).toBeGreaterThan(20);
  });
});
