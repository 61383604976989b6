import { headChars } from '../compaction/text.js';
import type { RequestLog } from '../observability/request-log.js';
import type { ConversationEvent } from '../store/event-log.js';

// A request's event, from the log the request path filled in along the way. Only numbers, the
// bounded enumerations recap itself sets (action, outcome, error code) and the model's name, cut:
// no prompt text, no header, no credential. The event's size is bounded whatever the client sent.

export const EVENT_MODEL_MAX_CHARS = 128;

const round2 = (ms: number) => Math.round(ms * 100) / 100;
// Money to a millionth of the currency unit: a request's cost is often a fraction of a cent.
const money = (v: number) => Math.round(v * 1e6) / 1e6;

export function eventFromLog(log: RequestLog, route: ConversationEvent['route'], at: number, durationMs: number): ConversationEvent {
  const map = log.viewMap?.();
  const event: ConversationEvent = {
    at,
    route,
    model: headChars(log.model ?? '', EVENT_MODEL_MAX_CHARS),
    model_label: log.modelLabel ?? 'unconfigured',
    action: log.action ?? 'none',
    tokens_in: log.tokensIn ?? 0,
    tokens_out: log.tokensOut ?? log.tokensIn ?? 0,
    cleared: log.cleared ?? 0,
    summarizer_calls: log.summarizerCalls ?? 0,
    summarizer_tokens: log.summarizerTokens ?? 0,
    recalls: log.recalls ?? 0,
    latency_ms: round2(durationMs),
    status: log.status ?? 0,
  };
  if (log.audit !== undefined) event.audit = log.audit;
  if (log.compaction !== undefined) event.compaction = log.compaction;
  if (log.projectedTokensOut !== undefined) event.projected_tokens_out = log.projectedTokensOut;
  if (log.budget !== undefined) event.budget = log.budget;
  if (log.outcome !== undefined) event.outcome = log.outcome;
  if (log.error !== undefined) event.error = log.error;
  if (log.cost !== undefined) event.cost = money(log.cost);
  if (log.costSaved !== undefined) event.cost_saved = money(log.costSaved);
  if (log.projectedCost !== undefined) event.projected_cost = money(log.projectedCost);
  if (log.cachedTokens !== undefined) event.cached_tokens = log.cachedTokens;
  if (log.cacheWriteTokens !== undefined) event.cache_write_tokens = log.cacheWriteTokens;
  if (log.costDecision !== undefined) {
    const d = log.costDecision;
    event.cost_decision = { saves: money(d.saves), costs: money(d.costs), calls: Math.round(d.calls), verdict: d.verdict };
  }
  if (log.forwardedMs !== undefined) event.own_ms = round2(Math.min(log.forwardedMs, durationMs));
  if (map) {
    event.view = map.view;
    event.summary_tokens = map.summary_tokens;
  }
  return event;
}
