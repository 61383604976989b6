import type { ConversationEntry, ConversationEvent } from './event-log.js';
import type { ConversationKey } from './store.js';

// What one event adds to its conversation's entry and to the overview's counts: pure, shared by
// both stores (the Redis scripts apply the very increments computed here), so they cannot drift.

export const tokensSaved = (e: ConversationEvent): number => Math.max(0, e.tokens_in - e.tokens_out);

export const projectedTokensSaved = (e: ConversationEvent): number => (e.projected_tokens_out === undefined ? 0 : Math.max(0, e.tokens_in - e.projected_tokens_out));

/** The prompt recap forwarded, or in audit mode would have forwarded. */
const viewTokens = (e: ConversationEvent): number => e.projected_tokens_out ?? e.tokens_out;

/** A count's name: the model label, then the metric (`action.compacted`, `tokens_saved`, …). */
export const countName = (modelLabel: string, metric: string): string => `${modelLabel}|${metric}`;

export function splitCountName(name: string): { model: string; metric: string } {
  const cut = name.lastIndexOf('|');
  return { model: name.slice(0, cut), metric: name.slice(cut + 1) };
}

/**
 * Upper bounds (ms) of the latency histograms the overview's p50/p95 are read from
 * (inspect/overview.ts); `inf` above the last. A count per bound and bucket, per model and route.
 */
export const LATENCY_BOUNDS_MS = [10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000, 300_000] as const;

/** The histogram bucket a latency falls in: `le<bound>`, or `inf`. */
export function latencyBucket(ms: number): string {
  const bound = LATENCY_BOUNDS_MS.find((b) => ms <= b);
  return bound === undefined ? 'inf' : `le${bound}`;
}

/** A route's name as a metric part: no `.` or `|` (it is read back by splitting on them). */
const routePart = (route: string): string => route.replace(/[.|]/g, '_');

/** Money is counted in millionths (the counts are integers). */
export const MONEY_SCALE = 1_000_000;

/** The overview's increments for one event; only the non-zero ones. */
export function eventCounts(e: ConversationEvent): Record<string, number> {
  const counts: Record<string, number> = {};
  const route = `route.${routePart(String(e.route))}.`;
  const add = (metric: string, n: number) => {
    if (n > 0) counts[countName(e.model_label, metric)] = n;
  };
  const error = e.status >= 400 || e.error !== undefined ? 1 : 0;
  // Per route: requests, errors and latency, whatever the model.
  add(`${route}requests`, 1);
  add(`${route}errors`, error);
  add(`${route}latency.${latencyBucket(e.latency_ms)}`, 1);
  if (e.own_ms !== undefined) add(`${route}own.${latencyBucket(e.own_ms)}`, 1);
  add(`latency.${latencyBucket(e.latency_ms)}`, 1);
  if (e.own_ms !== undefined) add(`own.${latencyBucket(e.own_ms)}`, 1);
  add('recalls', e.recalls);
  add('cost', Math.round((e.cost ?? 0) * MONEY_SCALE));
  add('cost_saved', Math.round((e.cost_saved ?? 0) * MONEY_SCALE));
  add('cached_tokens', e.cached_tokens ?? 0);
  if (e.projected_cost !== undefined) {
    add('projected_cost', Math.round(e.projected_cost * MONEY_SCALE));
    add('projected_cost_saved', Math.round(Math.max(0, (e.cost ?? 0) - e.projected_cost) * MONEY_SCALE));
  }
  add('requests', 1);
  add('tokens_in', e.tokens_in);
  add('tokens_out', e.tokens_out);
  add('tokens_saved', tokensSaved(e));
  add('projected_tokens_saved', projectedTokensSaved(e));
  add(`action.${e.action}`, 1);
  if (e.audit !== undefined) add(`audit.${e.audit}`, 1);
  add('summarizer_calls', e.summarizer_calls);
  add('summarizer_tokens', e.summarizer_tokens);
  add('over_budget', e.budget !== undefined && viewTokens(e) > e.budget ? 1 : 0);
  add('errors', error);
  return counts;
}

/** A summarizer call made apart from any request (background preparation). */
export function spendCounts(modelLabel: string, calls: number, tokens: number): Record<string, number> {
  const counts: Record<string, number> = {};
  if (calls > 0) counts[countName(modelLabel, 'summarizer_calls')] = calls;
  if (tokens > 0) counts[countName(modelLabel, 'summarizer_tokens')] = tokens;
  return counts;
}

/** The conversation's entry with one more event (the memory store's; redis-event-scripts.ts does the same). */
export function addToEntry(entry: ConversationEntry | undefined, key: ConversationKey, e: ConversationEvent, id: string | null): ConversationEntry {
  return {
    tenant: key.tenant,
    conversation: key.conversation,
    id: id ?? entry?.id ?? null,
    route: e.route,
    model: e.model,
    first_seen: entry?.first_seen ?? e.at,
    last_seen: e.at,
    requests: (entry?.requests ?? 0) + 1,
    tokens_in: (entry?.tokens_in ?? 0) + e.tokens_in,
    tokens_out: (entry?.tokens_out ?? 0) + e.tokens_out,
    tokens_saved: (entry?.tokens_saved ?? 0) + tokensSaved(e),
    projected_tokens_saved: (entry?.projected_tokens_saved ?? 0) + projectedTokensSaved(e),
    last_action: e.action,
    last_audit: e.audit ?? null,
    recalls: (entry?.recalls ?? 0) + e.recalls,
  };
}

/** Adds `more` into `into`. */
export function addCountsInto(into: Map<string, number>, more: Record<string, number>): void {
  for (const [name, n] of Object.entries(more)) into.set(name, (into.get(name) ?? 0) + n);
}
