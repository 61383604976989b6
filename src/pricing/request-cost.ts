import type { UsageReport } from '../tokens/usage.js';
import { costOf, type Prices } from './prices.js';

// What one request cost, and what sending the client's whole request would have cost instead.
//
// cost      = the forwarded prompt and the reply at the upstream's reported usage (cached, written
//             and uncached tokens each at their price) + this request's summarizer calls.
// baseline  = the client's own prompt and the same reply, its cached share estimated: when the
//             provider reports caching for this request, everything but the client's newest turn
//             (the last assistant message and what follows it) is taken as read from the cache,
//             the newest turn as written to it (at the write price where the provider reports
//             writes, else uncached). Estimates are scaled into the upstream's own token units
//             by the ratio of its reported prompt to recap's estimate of what was sent.
// saved     = baseline − cost (negative on a turn whose compaction cost more than it saved yet).
// A request forwarded as the client sent it has baseline = cost without the summarizer: it saves
// exactly minus what its summarizer calls cost (nothing, usually).

export interface RequestCostInput {
  prices: Prices;
  /** The upstream's usage for what recap forwarded. */
  usage: UsageReport;
  /** What this request's summarizer calls cost. */
  summarizerCost: number;
  /** recap's estimates, in its own token units: the client's prompt, and what was sent. */
  clientTokens: number;
  sentTokens: number;
  /** Of clientTokens, the newest turn (new since the client's previous request). */
  newTokens: number;
  /** recap forwarded the client's own bytes. */
  asSent: boolean;
}

export interface RequestCost {
  cost: number;
  baseline: number;
  saved: number;
}

/** The billed tokens of a prompt of `prompt` tokens (recap's units) whose `stable` leading tokens the provider may have cached. */
export function estimatedUsage(usage: UsageReport, sentTokens: number, prompt: number, stable: number): { prompt: number; cached: number; written: number; output: number } {
  const scale = sentTokens > 0 ? usage.promptTokens / sentTokens : 1;
  const caches = usage.cachedTokens !== undefined;
  const writes = usage.cacheWriteTokens !== undefined;
  const cached = caches ? Math.max(0, Math.min(stable, prompt)) * scale : 0;
  const total = prompt * scale;
  return { prompt: total, cached, written: writes ? total - cached : 0, output: usage.outputTokens ?? 0 };
}

export function requestCost(r: RequestCostInput): RequestCost {
  const reported = { prompt: r.usage.promptTokens, cached: r.usage.cachedTokens ?? 0, written: r.usage.cacheWriteTokens ?? 0, output: r.usage.outputTokens ?? 0 };
  const forwarded = costOf(r.prices, reported);
  const cost = forwarded + r.summarizerCost;
  const baseline = r.asSent ? forwarded : costOf(r.prices, estimatedUsage(r.usage, r.sentTokens, r.clientTokens, r.clientTokens - r.newTokens));
  return { cost, baseline, saved: baseline - cost };
}
