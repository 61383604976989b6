import type { TiktokenBPE } from 'js-tiktoken/lite';
import { asciiPieceEnd } from './ascii-pretokens.js';
import { mergedTokenCount } from './bpe-merge.js';
import { buildRankTable, byteString } from './rank-table.js';

// Counts a text's tokens the way js-tiktoken encodes it: its pre-token regex cuts the text into
// word-like pieces, and each piece is one token when the rank table holds it, else as many as the
// BPE merge leaves (bpe-merge.ts). js-tiktoken's own merge builds a string per adjacent pair at
// every step, quadratic in a piece's length (a 12,000-character run of CJK without punctuation
// took two minutes), hence recap's walk.
//
// Real text repeats its pieces: words, JSON keys, the parts of paths and identifiers. In an agent's
// tool results (logs, listings, code with ids and hashes) 730,000 pieces were 2,900 distinct ones,
// and a piece looked up in a few thousand entries costs a third of a lookup among the 200,000 of
// the rank table (whose entries miss the processor's caches), let alone a merge. So each piece's
// count is kept in a bounded cache of two generations: when the current one is full it becomes the
// previous one, and a piece found there moves back, so what keeps recurring stays.
//
// Most of what agents send is ASCII: there the pieces are found by the pattern's hand-compiled
// form (ascii-pretokens.ts), a piece of one or two characters is counted by a table, and one of
// three or four is kept under its character codes packed into an integer instead of a string.

/** Entries per generation: a few thousand pieces cover a conversation's vocabulary. */
const GENERATION_SIZE = 8_192;
/** Longer pieces (a pasted blob, a long run of CJK) rarely recur and would bloat the cache. */
const LONGEST_CACHED = 48;
/** Any UTF-16 code unit past ASCII (a surrogate too). */
const NON_ASCII = /[\u0080-\uffff]/;

/** The pattern without capturing groups (its contractions' group is only ever tested, never read): cheaper matches. */
function nonCapturing(pattern: string): string {
  // Only a pattern without escaped or bracketed parentheses can be rewritten this simply.
  if (/\\\(|\[[^\]]*\(/.test(pattern)) return pattern;
  return pattern.replace(/\((?!\?)/g, '(?:');
}

/**
 * A key that holds nothing but its own characters: V8 may keep a piece matched out of a long text
 * as a slice of that text, and a cached slice would keep the whole text alive.
 */
function ownCopy(piece: string): string {
  return Buffer.from(piece, 'utf16le').toString('utf16le');
}

/** Counts in two generations: when the current one is full it becomes the previous one, and a key found there moves back. */
function generations<K>(own: (key: K) => K): { get(key: K): number | undefined; set(key: K, tokens: number): number } {
  let current = new Map<K, number>();
  let previous = new Map<K, number>();
  const set = (key: K, tokens: number): number => {
    if (current.size >= GENERATION_SIZE) {
      previous = current;
      current = new Map();
    }
    current.set(own(key), tokens);
    return tokens;
  };
  return {
    get(key) {
      const known = current.get(key);
      if (known !== undefined) return known;
      const older = previous.get(key);
      return older === undefined ? undefined : set(key, older);
    },
    set,
  };
}

export function pretokenCounter(bpe: TiktokenBPE): (text: string) => number {
  const { ranks, longestToken } = buildRankTable(bpe);
  const pretokens = new RegExp(nonCapturing(bpe.pat_str), 'gu');
  // The same pieces, found faster in a text that is all ASCII (most of what agents send).
  const pieceEnd = asciiPieceEnd(bpe.pat_str);
  const pieces = generations<string>(ownCopy);

  const merged = (piece: string): number => {
    const bytes = byteString(piece);
    if (bytes.length <= longestToken && ranks.has(bytes)) return 1;
    return mergedTokenCount(bytes.length, (start, end) => (end - start > longestToken ? undefined : ranks.get(bytes.slice(start, end))));
  };

  const countPiece = (piece: string): number => {
    const known = pieces.get(piece);
    if (known !== undefined) return known;
    const tokens = merged(piece);
    return piece.length > LONGEST_CACHED ? tokens : pieces.set(piece, tokens);
  };

  // Half the pieces of code and logs are one or two ASCII characters: their counts sit in a table
  // indexed by the characters' codes, which costs neither a string nor a lookup by one.
  const shortCounts = new Uint8Array(128 + 128 * 128);
  const countShort = (text: string, pos: number, end: number): number => {
    const at = end - pos === 1 ? text.charCodeAt(pos) : 128 + (text.charCodeAt(pos) << 7) + text.charCodeAt(pos + 1);
    let tokens = shortCounts[at]!;
    if (tokens === 0) shortCounts[at] = tokens = merged(text.slice(pos, end));
    return tokens;
  };

  // A piece of three or four ASCII characters (another third of them) is looked up by its
  // character codes and length packed into one small integer: no string is made for it either.
  const packed = generations<number>((key) => key);
  const countPacked = (text: string, pos: number, end: number): number => {
    const last = end - pos === 4 ? text.charCodeAt(pos + 3) | 0x80 : 0;
    const key = (text.charCodeAt(pos) << 22) | (text.charCodeAt(pos + 1) << 15) | (text.charCodeAt(pos + 2) << 8) | last;
    return packed.get(key) ?? packed.set(key, merged(text.slice(pos, end)));
  };

  return (text) => {
    let tokens = 0;
    if (pieceEnd && !NON_ASCII.test(text)) {
      for (let pos = 0, end = 0; pos < text.length; pos = end) {
        end = pieceEnd(text, pos);
        const length = end - pos;
        tokens += length <= 2 ? countShort(text, pos, end) : length <= 4 ? countPacked(text, pos, end) : countPiece(text.slice(pos, end));
      }
      return tokens;
    }
    pretokens.lastIndex = 0;
    for (let match = pretokens.exec(text); match !== null; match = pretokens.exec(text)) tokens += countPiece(match[0]);
    return tokens;
  };
}
