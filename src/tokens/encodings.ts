import { createRequire } from 'node:module';
import type { TiktokenBPE } from 'js-tiktoken/lite';
import { pretokenCounter } from './pretoken-count.js';
import { estimateTokens, isSegmentStart } from './estimate.js';
import { isBpeSafeCut, type CutTest } from '../compaction/split.js';
import type { EncodingName } from '../config/encoding-names.js';

// The tokenizers recap counts with. The BPE rank tables are large (o200k_base takes a few hundred
// milliseconds to build), so each is built at most once per process, on first use, unless the
// server preloads the ones its config names at boot so the first request does not pay for it.

export { ENCODING_NAMES, type EncodingName } from '../config/encoding-names.js';

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

function tiktokenizer(name: Exclude<EncodingName, 'estimate'>): TextTokenizer {
  // Special-token strings such as "<|endoftext|>" are not looked for: a user writing one is
  // sending text, and the upstream tokenizes it as text too.
  const count = pretokenCounter(requireRanks(RANK_MODULES[name]) as TiktokenBPE);
  return { name, count, isSafeCut: isBpeSafeCut };
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

// V8 compiles a regular expression separately for one-byte and two-byte strings, hence one text
// of each (CJK and an emoji make the second two-byte); words, digits, punctuation and whitespace
// runs also take the counting code through its usual paths once.
const WARM_UP_TEXTS = ["Warm-up: it's naïve CAFÉ_42 -- 12,345 tokens?\n\t  <a href='/x'>y</a>\r\n", 'Warm-up: 你好，世界 🙂 ok?\n'];

/**
 * Builds the named tokenizers now (at boot) instead of on the first request that needs them, and
 * runs each once: V8 compiles a regular expression on its first use, and compiling the pre-token
 * pattern blocks the event loop for several milliseconds in one piece.
 */
export function preloadEncodings(names: Iterable<EncodingName>): void {
  for (const name of names) {
    const tokenizer = getTokenizer(name);
    for (const text of WARM_UP_TEXTS) {
      tokenizer.count(text);
      for (let p = 1; p < text.length; p++) tokenizer.isSafeCut(text, p);
    }
  }
}
