import type { ModelConfig } from '../config/schema.js';
import type { Metrics } from '../observability/metrics.js';
import type { OutcomePart } from '../observability/outcome.js';
import { modelPrices } from '../pricing/model-prices.js';
import { costOf } from '../pricing/prices.js';
import { estimatedUsage, requestCost } from '../pricing/request-cost.js';
import type { UsageReport } from '../tokens/usage.js';

// A request's money, once the upstream's usage is known: the metrics, and the part of the
// request's outcome (its log line and event) it makes. Only models with `pricing`; the cached tokens are counted for every model that reports them.

export interface PricedRequest {
  /** recap's estimates: the client's prompt, what was sent, the client's newest turn. */
  clientTokens: number;
  sentTokens: number;
  newTokens: number;
  asSent: boolean;
  /** Audit mode: the view recap would have sent, and its leading tokens the provider would still have cached. */
  projected?: { tokens: number; stable: number };
}

/** `summarizerCost`: what this request's own summarizer calls cost, counted against what it saved. */
export function priceRequest(metrics: Metrics, model: ModelConfig, usage: UsageReport, summarizerCost: number | undefined, r: PricedRequest): OutcomePart {
  const label = model.match;
  if (usage.cachedTokens !== undefined) metrics.cachedTokens.inc({ model: label }, usage.cachedTokens);
  const cache: OutcomePart = {
    ...(usage.cachedTokens !== undefined ? { cachedTokens: usage.cachedTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
  };
  const prices = modelPrices(model);
  if (!prices) return cache;
  // The summarizer's calls were counted in the metrics as they were made (step-context.ts).
  const upstream = requestCost({ prices, usage, summarizerCost: 0, ...r });
  metrics.cost.inc({ model: label }, upstream.cost);
  metrics.costSaved.inc({ model: label }, upstream.saved);
  const summarizer = summarizerCost ?? 0;
  return {
    ...cache,
    cost: upstream.cost + summarizer,
    costSaved: upstream.saved - summarizer,
    ...(r.projected ? { projectedCost: costOf(prices, estimatedUsage(usage, r.sentTokens, r.projected.tokens, r.projected.stable)) } : {}),
  };
}
