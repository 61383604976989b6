import type { Passage } from './left-out.js';

// Finding the parts of the left-out passages that match a query, without an index: a request holds
// at most a few megabytes of them and a recall is rare. Passages are cut into windows of lines;
// a window scores by the whole query appearing in it, else by how many of the query's terms do.

const WINDOW_CHARS = 1200;

export interface Hit {
  passage: Passage;
  /** Index of the passage in the list searched. */
  index: number;
  /** The matching window of the passage's text. */
  text: string;
  /** Whether the window is the passage's whole text. */
  whole: boolean;
  score: number;
}

/** The query's terms: runs of letters, digits and the characters of paths and ids, lowercased. */
export function queryTerms(query: string): string[] {
  const terms = query.toLowerCase().match(/[\p{L}\p{N}_./:#@-]+/gu) ?? [];
  return [...new Set(terms.map((t) => t.replace(/^[.:/-]+|[.:/-]+$/g, '')).filter((t) => t.length >= 2))];
}

/** Windows of about WINDOW_CHARS, cut at line ends where there are some. */
export function windows(text: string): string[] {
  if (text.length <= WINDOW_CHARS) return [text];
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + WINDOW_CHARS);
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end);
      if (nl > start + WINDOW_CHARS / 2) end = nl + 1;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

function scoreOf(window: string, phrase: string, terms: readonly string[]): number {
  const lower = window.toLowerCase();
  const found = terms.filter((t) => lower.includes(t)).length;
  // The whole query outranks any number of its terms; a window needs at least half the terms.
  if (phrase.length > 0 && lower.includes(phrase)) return 1000 + found;
  return found > 0 && found * 2 >= terms.length ? found : 0;
}

/** Matching windows, best first (then in the conversation's order). */
export function searchPassages(passages: readonly Passage[], query: string): Hit[] {
  const phrase = query.trim().toLowerCase();
  const terms = queryTerms(query);
  const hits: Hit[] = [];
  passages.forEach((passage, index) => {
    const parts = windows(passage.text);
    for (const text of parts) {
      const score = scoreOf(text, phrase, terms);
      if (score > 0) hits.push({ passage, index, text, whole: parts.length === 1, score });
    }
  });
  return hits.sort((a, b) => b.score - a.score || a.index - b.index);
}
