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

function tiktokenizer(name: Exclude<EncodingName, 'estimate'>): TextTokenizer {
  const ranks = requireRanks(RANK_MODULES[name]) as TiktokenBPE;
  const bpe = new Tiktoken(ranks);
  // Empty allowed and disallowed special sets: a user writing "<|endoftext|>" is sending text,
  // and the upstream tokenizes it as text too.
  return { name, count: (text) => (text.length === 0 ? 0 : bpe.encode(text, [], []).length), isSafeCut: isBpeSafeCut };
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
