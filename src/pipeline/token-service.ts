import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Config, ModelConfig } from '../config/config.js';
import { messageHash } from '../conversation/canonical.js';
import type { ChatMessage, ChatRequest } from '../messages/types.js';
import type { Metrics } from '../observability/metrics.js';
import { type Budget, type OutputLimits, resolveBudget } from '../tokens/budget.js';
import { createTokenCache } from '../tokens/cache.js';
import { createCalibration } from '../tokens/calibration.js';
import { createTokenCounter, type TokenCounter } from '../tokens/counter.js';
import { type EncodingName, preloadEncodings } from '../tokens/encodings.js';
import { type ConversationMemo, createConversationMemo, type Recalled } from '../tokens/memo.js';

// Token accounting as the request path uses it: one counter per encoding sharing one bounded
// cache, the budget rule, and per-model calibration from the upstream's reported usage (rule 3).

export interface TokenService {
  counterFor(encoding: EncodingName): TokenCounter;
  /** Recent conversations' last requests, so their history is not hashed again every turn. */
  memo: ConversationMemo;
  /** Multiplies an estimate by the model's calibration factor, where calibration applies. */
  scaleFor(model: ModelConfig | undefined): (tokens: number) => number;
  budgetFor(model: ModelConfig, req: OutputLimits, toolsTokens: number): Budget;
  /** The upstream reported `actual` prompt tokens for a prompt recap estimated (uncalibrated) at `estimated`. */
  observe(model: ModelConfig, estimated: number, actual: number): void;
}

export function calibrates(model: ModelConfig): boolean {
  return model.calibrate ?? model.encoding === 'estimate';
}

export function createTokenService(config: Config, metrics: Metrics): TokenService {
  // Ranks load at boot, not on the first request.
  preloadEncodings(new Set<EncodingName>(['o200k_base', ...config.models.map((m) => m.encoding)]));
  const cache = createTokenCache(config.tokens);
  // Built on first use: a counter builds its encoding's rank table, which only the preloaded
  // encodings (the configured ones) should cost at boot.
  const counters = new Map<EncodingName, TokenCounter>();
  const calibration = createCalibration();
  const identity = (t: number) => t;
  return {
    counterFor(encoding) {
      let counter = counters.get(encoding);
      if (counter === undefined) {
        counter = createTokenCounter({ encoding, cache });
        counters.set(encoding, counter);
      }
      return counter;
    },
    memo: createConversationMemo(config.tokens.memo_max_bytes),
    scaleFor(model) {
      if (!model || !calibrates(model)) return identity;
      const f = calibration.factor(model.match);
      return f === 1 ? identity : (t) => Math.ceil(t * f);
    },
    budgetFor: (model, req, toolsTokens) => resolveBudget(model, req, toolsTokens),
    observe(model, estimated, actual) {
      calibration.observe(model.match, estimated, actual);
      metrics.calibration.set({ model: model.match }, calibration.factor(model.match));
    },
  };
}

export interface RequestTokens {
  counter: TokenCounter;
  /** Per message, calibrated. */
  perMessage: number[];
  primingTokens: number;
  toolsTokens: number;
  /** The whole prompt as the client sent it (calibrated estimate): x-recap-tokens-in. */
  tokensIn: number;
  /** The same, uncalibrated: what calibration compares with the upstream's usage. */
  rawIn: number;
  /** Uncalibrated tokens of tools, functions and response_format. */
  rawTools: number;
  /** Canonical hash of each message (canonical.ts). */
  hashes: string[];
  countMessage(m: ChatMessage): number;
}

// Hashing a large body takes a few milliseconds; in slices, the event loop keeps moving (and
// keeps writing a request that was forwarded first) while it runs.
const HASH_SLICE_MS = 0.5;

async function hashMessages(messages: readonly ChatMessage[], recalled: Recalled | undefined, leading: readonly string[] | undefined): Promise<string[]> {
  const hashes: string[] = [];
  let sliceStart = performance.now();
  for (const [i, m] of messages.entries()) {
    hashes.push(recalled?.hashes[i] ?? leading?.[i] ?? messageHash(m));
    if (performance.now() - sliceStart > HASH_SLICE_MS) {
      await nextMacrotask();
      sliceStart = performance.now();
    }
  }
  return hashes;
}

/**
 * `conversation` (tenant and conversation, as one string), when known, lets the memo skip the
 * history; `leadingHashes`, the first messages' hashes when identifying already worked them out.
 */
export async function countRequest(
  tokens: TokenService,
  body: ChatRequest,
  model: ModelConfig | undefined,
  conversation?: string,
  leadingHashes?: readonly string[],
): Promise<RequestTokens> {
  const counter = tokens.counterFor(model?.encoding ?? 'o200k_base');
  const scale = tokens.scaleFor(model);
  const recalled = conversation === undefined ? undefined : tokens.memo.recall(conversation, counter.encoding, body.messages);
  // One hash per message serves both the token cache and the records' hash chain.
  const hashes = await hashMessages(body.messages, recalled, leadingHashes);
  const counted = await counter.countMessagesAsync(body.messages, hashes, recalled?.tokens);
  if (conversation !== undefined) tokens.memo.remember(conversation, counter.encoding, body.messages, hashes, counted.perMessage);
  const rawTools = counter.countTools(body);
  const perMessage = counted.perMessage.map(scale);
  const primingTokens = counted.total - counted.perMessage.reduce((x, y) => x + y, 0);
  const toolsTokens = scale(rawTools);
  return {
    counter,
    perMessage,
    primingTokens,
    toolsTokens,
    tokensIn: perMessage.reduce((x, y) => x + y, 0) + primingTokens + toolsTokens,
    rawIn: counted.total + rawTools,
    rawTools,
    hashes,
    countMessage: (m) => scale(counter.countMessage(m)),
  };
}
