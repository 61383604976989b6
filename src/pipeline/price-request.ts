import type { ModelConfig } from '../config/schema.js';
import type { Metrics } from '../observability/metrics.js';
import type { RequestLog } from '../observability/request-log.js';
import { modelPrices } from '../pricing/model-prices.js';
import { costOf } from '../pricing/prices.js';
import { estimatedUsage, requestCost } from '../pricing/request-cost.js';
import type { UsageReport } from '../tokens/usage.js';

// A request's money, once the upstream's usage is known: into its log line, its event and the
// metrics. Only models with `pricing`; the cached tokens are counted for every model that reports them.

export interface PricedRequest {
  /** recap's estimates: the client's prompt, what was sent, the client's newest turn. */
  clientTokens: number;
  sentTokens: number;
  newTokens: number;
  asSent: boolean;
  /** Audit mode: the view recap would have sent, and its leading tokens the provider would still have cached. */
  projected?: { tokens: number; stable: number };
}

export function priceRequest(metrics: Metrics, log: RequestLog, model: ModelConfig, usage: UsageReport, r: PricedRequest): void {
  const label = model.match;
  if (usage.cachedTokens !== undefined) {
    log.cachedTokens = usage.cachedTokens;
    metrics.cachedTokens.inc({ model: label }, usage.cachedTokens);
  }
  if (usage.cacheWriteTokens !== undefined) log.cacheWriteTokens = usage.cacheWriteTokens;
  const prices = modelPrices(model);
  if (!prices) return;
  // The summarizer's calls were counted in the metrics as they were made (step-context.ts).
  const upstream = requestCost({ prices, usage, summarizerCost: 0, ...r });
  metrics.cost.inc({ model: label }, upstream.cost);
  metrics.costSaved.inc({ model: label }, upstream.saved);
  const summarizer = log.summarizerCost ?? 0;
  log.cost = upstream.cost + summarizer;
  log.costSaved = upstream.saved - summarizer;
  if (r.projected) log.projectedCost = costOf(prices, estimatedUsage(usage, r.sentTokens, r.projected.tokens, r.projected.stable));
}
