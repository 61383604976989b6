import { createRequire } from 'node:module';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import { estimateTokens, isSegmentStart } from './estimate.js';
import { isBpeSafeCut, type CutTest } from './split.js';

// The tokenizers recap counts with. The BPE rank tables are large (o200k_base takes most of a second
// to build), so each is built at most once per process, on first use, unless the server preloads the
// ones its config names at boot so the first request does not pay for it.

export type EncodingName = 'o200k_base' | 'cl100k_base' | 'estimate';

export const ENCODING_NAMES: readonly EncodingName[] = ['o200k_base', 'cl100k_base', 'estimate'];

export interface TextTokenizer {
  readonly name: EncodingName;
  /** Tokens of `text` as plain text: special-token strings such as `<|endoftext|>` count as text. */
  count(text: string): number;
  /** Where a text may be cut so that the pieces' counts sum to the whole's (see split.ts). */
  readonly isSafeCut: CutTest;
}

// `require` rather than `import()` keeps loading synchronous, so counting stays a plain function.
const requireRanks = createRequire(import.meta.url);

const RANK_MODULES: Record<Exclude<EncodingName, 'estimate'>, string> = {
  o200k_base: 'js-tiktoken/ranks/o200k_base',
  cl100k_base: 'js-tiktoken/ranks/cl100k_base',
};

const loaded = new Map<EncodingName, TextTokenizer>();

// js-tiktoken merges the bytes of each pre-token (the word-like pieces its regex cuts text into)
// in time quadratic in the pre-token's length: an 8,000-letter "word" takes seconds, one of 100 KB
// would hold the process for many minutes. Natural text has no pre-token near this long; a longer
// one (a hostile body, a pasted blob) counts as its byte length, an upper bound since every token
// covers at least one byte, and only the text around it goes through BPE.
const LONG_PRETOKEN_BYTES = 256;
// A UTF-16 unit is at most 3 UTF-8 bytes: a match this short cannot be long.
const LONG_PRETOKEN_MIN_UNITS = Math.ceil(LONG_PRETOKEN_BYTES / 3);

function boundedCount(text: string, pretokens: RegExp, encode: (text: string) => number): number {
  let tokens = 0;
  let from = 0;
  for (const match of text.matchAll(pretokens)) {
    const piece = match[0];
    if (piece.length <= LONG_PRETOKEN_MIN_UNITS) continue;
    const bytes = Buffer.byteLength(piece);
    if (bytes <= LONG_PRETOKEN_BYTES) continue;
    tokens += encode(text.slice(from, match.index)) + bytes;
    from = match.index + piece.length;
  }
  // Without a long pre-token this is the whole text, counted exactly.
  return tokens + encode(from === 0 ? text : text.slice(from));
}

function tiktokenizer(name: Exclude<EncodingName, 'estimate'>): TextTokenizer {
  const ranks = requireRanks(RANK_MODULES[name]) as TiktokenBPE;
  const bpe = new Tiktoken(ranks);
  const pretokens = new RegExp(ranks.pat_str, 'gu');
  // Empty allowed and disallowed special sets: a user writing "<|endoftext|>" is sending text,
  // and the upstream tokenizes it as text too.
  const encode = (text: string) => (text.length === 0 ? 0 : bpe.encode(text, [], []).length);
  return { name, count: (text) => boundedCount(text, pretokens, encode), isSafeCut: isBpeSafeCut };
}

const estimator: TextTokenizer = { name: 'estimate', count: estimateTokens, isSafeCut: isSegmentStart };

export function getTokenizer(name: EncodingName): TextTokenizer {
  let tokenizer = loaded.get(name);
  if (tokenizer === undefined) {
    tokenizer = name === 'estimate' ? estimator : tiktokenizer(name);
    loaded.set(name, tokenizer);
  }
  return tokenizer;
}

/** Builds the named tokenizers now (at boot) instead of on the first request that needs them. */
export function preloadEncodings(names: Iterable<EncodingName>): void {
  for (const name of names) getTokenizer(name);
}
