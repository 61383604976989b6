import type { ChatMessage, ChatRequest } from '../messages/types.js';
import { objectNote } from '../body/object-notes.js';
import { createSlicer, type Pause, SLICE_MS } from '../slicing/slicer.js';
import { type TokenCache, tokenCacheKey, tokenCacheKeyFromHash } from './cache.js';
import { type EncodingName, getTokenizer, type TextTokenizer } from './encodings.js';
import { messageCost, REPLY_PRIMING_TOKENS } from './message-tokens.js';
import { piecesForCounting } from '../compaction/split.js';
import { knownToolsTokens, toolsTokens } from './tools-tokens.js';

// Counts prompts the way OpenAI bills them (message-tokens.ts, tools-tokens.ts), one cached entry
// per message so that a long conversation is tokenized once, not once per turn.

export interface MessageCounts {
  /** All messages plus the tokens that prime the reply. */
  total: number;
  /** Tokens of each message, per-message framing included. */
  perMessage: number[];
}

export interface TokenCounter {
  readonly encoding: EncodingName;
  countText(text: string): number;
  countMessage(m: ChatMessage, hash?: string): number;
  /**
   * `hashes`, if given, are the messages' canonical hashes (canonical.ts `messageHash`), aligned
   * with `ms`: the request path computes them for the hash chain anyway, and hashing is most of
   * what counting a cached message costs.
   */
  countMessages(ms: readonly ChatMessage[], hashes?: readonly string[]): MessageCounts;
  /**
   * Same result as countMessages, tokenizing in slices so the event loop is never held long;
   * `earlier`, this counter's counts of the first `from` messages, when it counted those objects
   * before (those messages are not read then).
   */
  countMessagesAsync(ms: readonly ChatMessage[], hashes?: readonly string[], from?: number, earlier?: readonly number[]): Promise<MessageCounts>;
  /** Tokens of the request's tools, functions and response_format definitions. */
  countTools(req: ChatRequest): number;
  /** The message's tokens when this counter counted the same message object before, else undefined. */
  known(m: ChatMessage): number | undefined;
  /** countTools when it needs no rendering (no definitions, or `tools` counted before), else undefined. */
  knownTools(req: ChatRequest): number | undefined;
}

export interface TokenCounterOptions {
  encoding: EncodingName;
  cache?: TokenCache;
}

// The tokenizer (encodings.ts) counts prose, code, JSON and logs at 10-40 MB/s (pretoken-count.ts;
// the first time its pieces are seen, the lower end) but dense CJK at ~300k chars/s, so a long text
// is cut into pieces of ~1K chars (split.ts keeps the sum exact where the text allows it): one
// piece costs well under a few milliseconds, whatever the script.
// The counter yields to the event loop once a slice of work passes SLICE_MS, so other requests
// wait about 10-30 ms at most behind a big message, and small messages are not slowed by yields.
const PIECE_CHARS = 1024;

function totals(perMessage: number[]): MessageCounts {
  return { total: perMessage.reduce((a, b) => a + b, REPLY_PRIMING_TOKENS), perMessage };
}

async function countTextSliced(tokenizer: TextTokenizer, text: string, pause: Pause): Promise<number> {
  let tokens = 0;
  const pieces = text.length > PIECE_CHARS ? piecesForCounting(text, PIECE_CHARS, tokenizer.isSafeCut) : [text];
  for (const piece of pieces) {
    tokens += tokenizer.count(piece);
    const due = pause();
    if (due) await due;
  }
  return tokens;
}

export function createTokenCounter({ encoding, cache }: TokenCounterOptions): TokenCounter {
  const tokenizer = getTokenizer(encoding);
  const countText = (text: string): number => tokenizer.count(text);

  // Without a cache there is nothing to key, so the message is not even hashed.
  const keyOf = (m: ChatMessage, hash: string | undefined): string | undefined => {
    if (!cache) return undefined;
    return hash === undefined ? tokenCacheKey(encoding, m) : tokenCacheKeyFromHash(encoding, hash);
  };
  const remember = (key: string | undefined, tokens: number): number => {
    if (key !== undefined) cache?.set(key, tokens);
    return tokens;
  };

  const cached = (key: string | undefined): number | undefined => (key === undefined ? undefined : cache?.get(key));

  // Per message object too: a message seen before comes back as the same object with every request
  // that sends its bytes (body/seen-items.ts), and costs a look at its note then (body/object-notes.ts), not a cache key.
  const counted = objectNote<ChatMessage, number>();
  const countOf = (m: ChatMessage, tokens: number): number => {
    counted.set(m, tokens);
    return tokens;
  };

  const countMessage = (m: ChatMessage, hash?: string): number => {
    const known = counted.get(m);
    if (known !== undefined) return known;
    const key = keyOf(m, hash);
    const hit = cached(key);
    if (hit !== undefined) return countOf(m, hit);
    const cost = messageCost(m);
    return countOf(
      m,
      remember(
        key,
        cost.texts.reduce((n, text) => n + countText(text), cost.fixedTokens),
      ),
    );
  };

  const countUncachedSliced = async (m: ChatMessage, key: string | undefined, pause: Pause): Promise<number> => {
    const cost = messageCost(m);
    let tokens = cost.fixedTokens;
    for (const text of cost.texts) tokens += await countTextSliced(tokenizer, text, pause);
    return countOf(m, remember(key, tokens));
  };

  return {
    encoding,
    countText,
    countMessage,
    countMessages: (ms, hashes) => totals(ms.map((m, i) => countMessage(m, hashes?.[i]))),
    countMessagesAsync: async (ms, hashes, from = 0, earlier = undefined) => {
      const pause = createSlicer(SLICE_MS);
      const perMessage: number[] = earlier ? earlier.slice(0, from) : [];
      for (let i = perMessage.length; i < ms.length; i++) {
        const m = ms[i]!;
        const known = counted.get(m);
        if (known !== undefined) {
          perMessage.push(known);
          continue;
        }
        const key = keyOf(m, hashes?.[i]);
        const hit = cached(key);
        // A cached message costs a lookup, not a trip through the microtask queue.
        perMessage.push(hit !== undefined ? countOf(m, hit) : await countUncachedSliced(m, key, pause));
        const due = pause();
        if (due) await due;
      }
      return totals(perMessage);
    },
    countTools: (req) => toolsTokens(req, tokenizer),
    known: (m) => counted.get(m),
    knownTools: (req) => knownToolsTokens(req, tokenizer),
  };
}
