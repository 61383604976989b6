import type { Passage } from './left-out.js';

// Finding the parts of the left-out passages that match a query, without an index: a request holds
// at most a few megabytes of them and a recall is rare. Passages are scanned in windows of lines; a
// window scores by the whole query appearing in it, else by how many of the query's terms do, and a
// match at word and identifier boundaries (`Bar` in `class Bar`, `FooBar`) outranks one inside a
// longer word (`bar` in `sidebar`). A hit's text is the part of its passage around the match, not
// the head of its window, so that what was asked for is in what comes back.

const WINDOW_CHARS = 1200;
/** Of a hit's text, the share that comes before the match (the rest follows it: a listing's line, a file's next lines). */
const LEAD_CHARS = 400;

export interface Hit {
  passage: Passage;
  /** Index of the passage in the list searched. */
  index: number;
  /** The part of the passage's text around the match. */
  text: string;
  /** Where the match starts in `text`. */
  at: number;
  /** Whether `text` is the passage's whole text. */
  whole: boolean;
  score: number;
}

/** The query's terms: runs of letters, digits and the characters of paths and ids, lowercased. */
export function queryTerms(query: string): string[] {
  const terms = query.toLowerCase().match(/[\p{L}\p{N}_./:#@-]+/gu) ?? [];
  return [...new Set(terms.map((t) => t.replace(/^[.:/-]+|[.:/-]+$/g, '')).filter((t) => t.length >= 2))];
}

/** [start, end) of windows of about WINDOW_CHARS, cut at line ends where there are some. */
export function windows(text: string): [number, number][] {
  if (text.length <= WINDOW_CHARS) return [[0, text.length]];
  const out: [number, number][] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + WINDOW_CHARS);
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end);
      if (nl > start + WINDOW_CHARS / 2) end = nl + 1;
    }
    out.push([start, end]);
    start = end;
  }
  return out;
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;

/** Whether text[at, at + length) stands at identifier boundaries: no word character goes on across them, except a camelCase step. */
export function atBoundaries(text: string, at: number, length: number): boolean {
  const before = text[at - 1];
  const after = text[at + length];
  const first = text[at] ?? '';
  const last = text[at + length - 1] ?? '';
  const starts = before === undefined || !WORD_CHAR.test(before) || !WORD_CHAR.test(first) || (LOWER.test(before) && UPPER.test(first));
  const ends = after === undefined || !WORD_CHAR.test(after) || !WORD_CHAR.test(last) || (LOWER.test(last) && UPPER.test(after));
  return starts && ends;
}

interface Found {
  at: number;
  bounded: boolean;
}

/** The first place of `needle` (lowercase) in `lower`[from, to) at identifier boundaries of `text`, else its first place at all. */
function find(text: string, lower: string, needle: string, from: number, to: number): Found | null {
  let first: Found | null = null;
  for (let at = lower.indexOf(needle, from); at !== -1 && at + needle.length <= to; at = lower.indexOf(needle, at + 1)) {
    if (atBoundaries(text, at, needle.length)) return { at, bounded: true };
    first ??= { at, bounded: false };
  }
  return first;
}

/** A window's score (0: no match) and where its best match starts. */
function scoreWindow(text: string, lower: string, [from, to]: [number, number], phrase: string, terms: readonly string[]): { score: number; at: number } {
  let points = 0;
  let found = 0;
  let at = -1;
  let boundedAt = -1;
  for (const term of terms) {
    const f = find(text, lower, term, from, to);
    if (!f) continue;
    found++;
    points += f.bounded ? 2 : 1;
    if (at === -1) at = f.at;
    if (f.bounded && boundedAt === -1) boundedAt = f.at;
  }
  const whole = phrase.length > 0 ? find(text, lower, phrase, from, to) : null;
  // The whole query outranks any number of its terms, at boundaries most; else a window needs at least half the terms.
  if (whole) return { score: (whole.bounded ? 3000 : 1000) + points, at: whole.at };
  if (found === 0 || found * 2 < terms.length) return { score: 0, at: -1 };
  return { score: points, at: boundedAt === -1 ? at : boundedAt };
}

/** Where the query's best match in `text` starts, or -1 when it has none. */
export function matchAt(text: string, query: string): number {
  const lower = text.toLowerCase();
  return scoreWindow(text, lower.length === text.length ? lower : text, [0, text.length], query.trim().toLowerCase(), queryTerms(query)).at;
}

/** [start, end) of the part of `text` around `at`: about LEAD_CHARS before it, the rest after, at line starts and ends where there are some. */
export function around(text: string, at: number, chars = WINDOW_CHARS): [number, number] {
  if (text.length <= chars) return [0, text.length];
  let start = Math.max(0, Math.min(at - LEAD_CHARS, text.length - chars));
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  if (lineStart < start && at - lineStart < chars / 2) start = lineStart;
  else if (start > 0) {
    const nl = text.indexOf('\n', start);
    if (nl !== -1 && nl < at) start = nl + 1;
  }
  let end = Math.min(text.length, start + chars);
  if (end < text.length) {
    const nl = text.lastIndexOf('\n', end);
    if (nl > at) end = nl + 1;
  }
  return [start, end];
}

/** Matching parts, best first (then in the conversation's order); no match is in two parts. */
export function searchPassages(passages: readonly Passage[], query: string): Hit[] {
  const phrase = query.trim().toLowerCase();
  const terms = queryTerms(query);
  const hits: Hit[] = [];
  passages.forEach((passage, index) => {
    const { text } = passage;
    const lower = text.toLowerCase();
    // Lowercasing that changes a text's length would shift every place found: such a text is searched as it is.
    const searched = lower.length === text.length ? lower : text;
    const found: { score: number; at: number }[] = [];
    for (const w of windows(text)) {
      const s = scoreWindow(text, searched, w, phrase, terms);
      if (s.score > 0) found.push(s);
    }
    const taken: [number, number][] = [];
    for (const { score, at } of found.sort((a, b) => b.score - a.score)) {
      const [start, end] = around(text, at);
      // A match already inside a part shown is not shown twice.
      if (taken.some(([s, e]) => at >= s && at < e)) continue;
      taken.push([start, end]);
      hits.push({ passage, index, text: text.slice(start, end), at: at - start, whole: start === 0 && end === text.length, score });
    }
  });
  return hits.sort((a, b) => b.score - a.score || a.index - b.index);
}
