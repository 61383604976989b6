import { headChars } from '../compaction/text.js';

// Cutting a text to a number of tokens: the longest head of it that the model's tokenizer counts
// within the bound. A recall result must fit what the request's budget has left.

/** `text`, or its longest head within `maxTokens` by `count`. */
export function fitTokens(text: string, maxTokens: number, count: (text: string) => number): string {
  if (maxTokens <= 0) return '';
  // No token is shorter than one character in practice: a cheap first cut for very long texts.
  let hi = Math.min(text.length, maxTokens * 8);
  if (hi === text.length && count(text) <= maxTokens) return text;
  let lo = 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(headChars(text, mid)) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return headChars(text, lo);
}
