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

/**
 * The longest part of `text` within `maxTokens` by `count` that holds the place `at`: about a
 * quarter of it before `at`, the rest after (what follows a match is what the model asked for:
 * the rest of a listing's line, a file's next lines). `from`: where the part starts in `text`.
 */
export function fitAround(text: string, at: number, maxTokens: number, count: (text: string) => number): { text: string; from: number } {
  if (maxTokens <= 0) return { text: '', from: 0 };
  if (count(text) <= maxTokens) return { text, from: 0 };
  const part = (chars: number) => {
    const from = Math.max(0, Math.min(at - Math.floor(chars / 4), text.length - chars));
    return { text: text.slice(from, from + chars), from };
  };
  let lo = 0;
  let hi = Math.min(text.length, maxTokens * 8);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(part(mid).text) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return part(lo);
}
