import type { ChatMessage, ChatRequest } from '../src/messages/types.js';
import { createPromptCache, type PromptBlock } from '../src/dev/prompt-cache.js';
import { isSharedPrefixCall } from '../src/dev/fake-summary.js';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { createTokenCounter } from '../src/tokens/counter.js';
import type { Drive } from './bench-recap.js';

// What a drive cost at given prices, with the provider's prompt cache simulated (src/dev/
// prompt-cache.ts): every request recap forwarded, and every summarizer call it made (input and
// output), against the client's own requests sent as they were. The main model's replies are
// the same either way and are left out: this is the effective input cost. A summarizer call on the
// conversation's own prefix goes through the conversation's cache (the same model), billed at
// whatever `summarizer` prices the caller gives (the model's own, for such a call).

export interface BenchPrices {
  /** Per token, any unit. */
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
}

export type CacheMode = 'automatic' | 'breakpoints';

export interface Bill {
  /** recap's forwarded prompts and its summarizer calls. */
  effective: number;
  /** Of which the summarizer calls... */
  summarizer: number;
  /** ...their prompt tokens, and of them read from the cache. */
  tokensSummarizer: number;
  cachedSummarizer: number;
  /** The client's own prompts, sent as they were. */
  baseline: number;
  /** Prompt tokens forwarded / sent by the client, and of them read from the cache. */
  tokensForwarded: number;
  tokensClient: number;
  cachedForwarded: number;
  cachedClient: number;
}

const counter = createTokenCounter({ encoding: 'o200k_base' });
// The same message is resent on every turn: counted once.
const counted = new Map<string, number>();
function tokensOf(key: string, count: () => number): number {
  let tokens = counted.get(key);
  if (tokens === undefined) {
    tokens = count();
    counted.set(key, tokens);
  }
  return tokens;
}

const isRecapSummary = (m: ChatMessage): boolean => typeof m.content === 'string' && m.content.startsWith(SUMMARY_MARKER);

/**
 * A chat body as cache blocks: its tools, then each message; Anthropic-style breakpoints after the
 * leading system block and on the last message, or for a summarizer call on the conversation's
 * prefix (`onPrefix`) on the last message of the prefix, where recap puts it (wire/messages/shared-prefix.ts).
 */
export function blocksOf(body: { messages: ChatMessage[]; tools?: unknown[] }, onPrefix = false): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  if (body.tools?.length) {
    const key = JSON.stringify(body.tools);
    blocks.push({ key, tokens: tokensOf(key, () => counter.countTools(body as unknown as ChatRequest)) });
  }
  // The client's own leading system block: recap's summary after it carries no breakpoint, as on the
  // Anthropic route, where one moves there only when the client lost one to eviction (wire/messages/breakpoints.ts).
  let pinned = 0;
  while (pinned < body.messages.length && ['system', 'developer'].includes(body.messages[pinned]!.role) && !isRecapSummary(body.messages[pinned]!)) pinned++;
  body.messages.forEach((m, i) => {
    const key = JSON.stringify(m);
    const last = body.messages.length - (onPrefix ? 2 : 1);
    blocks.push({ key, tokens: tokensOf(key, () => counter.countMessage(m)), breakpoint: i === pinned - 1 || i === last });
  });
  return blocks;
}

function priced(p: BenchPrices, use: { prompt: number; cached: number; written: number }): number {
  return use.cached * p.cachedInput + use.written * p.cacheWrite + (use.prompt - use.cached - use.written) * p.input;
}

export function bill(d: Drive, mode: CacheMode, model: BenchPrices, summarizer: BenchPrices, clientTools: unknown[] | undefined): Bill {
  const forwardedCache = createPromptCache({ mode });
  const clientCache = createPromptCache({ mode });
  const out: Bill = {
    effective: 0,
    summarizer: 0,
    tokensSummarizer: 0,
    cachedSummarizer: 0,
    baseline: 0,
    tokensForwarded: 0,
    tokensClient: 0,
    cachedForwarded: 0,
    cachedClient: 0,
  };
  const calls = [...d.chatRequests.map((r) => ({ r, summary: null as string | null })), ...d.summarizer.map((s) => ({ r: s.request, summary: s.reply }))].sort(
    (a, b) => a.r.receivedAt - b.r.receivedAt,
  );
  for (const { r, summary } of calls) {
    const body = r.json as { model: string; messages: ChatMessage[]; tools?: unknown[] };
    // A summarizer call on the conversation's prefix names the conversation's model: it shares its cache.
    const use = forwardedCache.send(body.model, blocksOf(body, summary !== null && isSharedPrefixCall(body)), r.receivedAt);
    if (summary === null) {
      out.effective += priced(model, use);
      out.tokensForwarded += use.prompt;
      out.cachedForwarded += use.cached;
    } else {
      const cost = priced(summarizer, use) + counter.countText(summary) * summarizer.output;
      out.effective += cost;
      out.summarizer += cost;
      out.tokensSummarizer += use.prompt;
      out.cachedSummarizer += use.cached;
    }
  }
  d.turns.forEach((t) => {
    const body = { messages: t.messages as ChatMessage[], tools: clientTools };
    const use = clientCache.send('client', blocksOf(body), t.sentAt);
    out.baseline += priced(model, use);
    out.tokensClient += use.prompt;
    out.cachedClient += use.cached;
  });
  return out;
}
