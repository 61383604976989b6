import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

// Labels are bounded: `model` is the config entry's `match` (or "unconfigured"), never the raw
// name a client sent, so that no client can blow up the number of series.

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'recap_' });
  const r = { registers: [registry] };
  return {
    registry,
    requests: new Counter({ ...r, name: 'recap_requests_total', help: 'HTTP requests by route, model and status', labelNames: ['route', 'model', 'status'] }),
    requestDuration: new Histogram({
      ...r,
      name: 'recap_request_duration_seconds',
      help: 'Time from request to the end of the response',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
    }),
    actions: new Counter({ ...r, name: 'recap_actions_total', help: 'Chat requests by x-recap-action', labelNames: ['model', 'action'] }),
    tokensIn: new Counter({ ...r, name: 'recap_tokens_in_total', help: 'Prompt tokens the clients sent (estimate)', labelNames: ['model'] }),
    tokensOut: new Counter({ ...r, name: 'recap_tokens_out_total', help: 'Prompt tokens recap forwarded upstream (estimate)', labelNames: ['model'] }),
    tokensSaved: new Counter({ ...r, name: 'recap_tokens_saved_total', help: 'tokens_in minus tokens_out', labelNames: ['model'] }),
    summarizerCalls: new Counter({
      ...r,
      name: 'recap_summarizer_calls_total',
      help: 'Summarizer calls by outcome (ok, error, timeout, empty, aborted, truncated, refused, not_smaller, too_long)',
      labelNames: ['model', 'outcome', 'mode'],
    }),
    summarizerDuration: new Histogram({ ...r, name: 'recap_summarizer_duration_seconds', help: 'Summarizer call latency', labelNames: ['mode'], buckets: LATENCY_BUCKETS }),
    summarizerTokens: new Counter({ ...r, name: 'recap_summarizer_tokens_total', help: 'Tokens sent to and received from the summarizer', labelNames: ['direction'] }),
    backgroundQueued: new Gauge({ ...r, name: 'recap_background_jobs_queued', help: 'Background compaction jobs waiting' }),
    backgroundRunning: new Gauge({ ...r, name: 'recap_background_jobs_running', help: 'Background compaction jobs running' }),
    backgroundJobs: new Counter({
      ...r,
      name: 'recap_background_jobs_total',
      help: 'Background compaction jobs by outcome (done, failed, skipped, shed)',
      labelNames: ['outcome'],
    }),
    projectedTokensSaved: new Counter({
      ...r,
      name: 'recap_projected_tokens_saved_total',
      help: 'Audit mode: tokens_in minus the tokens recap would have forwarded',
      labelNames: ['model'],
    }),
    // Money, in the currency of the models' `pricing` (only models with prices count).
    cachedTokens: new Counter({ ...r, name: 'recap_cached_tokens_total', help: 'Prompt tokens the upstream reported read from its cache', labelNames: ['model'] }),
    cost: new Counter({ ...r, name: 'recap_cost_total', help: 'What requests cost at the configured prices: upstream usage and summarizer calls', labelNames: ['model'] }),
    // A gauge: a turn whose compaction re-reads the new view uncached can cost more than it saves yet.
    costSaved: new Gauge({
      ...r,
      name: 'recap_cost_saved_total',
      help: 'What sending the clients whole requests would have cost minus what recap spent (may go down)',
      labelNames: ['model'],
    }),
    auditActions: new Counter({ ...r, name: 'recap_audit_actions_total', help: 'Audit-mode requests by x-recap-audit', labelNames: ['model', 'audit'] }),
    unmatchedModels: new Counter({
      ...r,
      name: 'recap_unmatched_model_requests_total',
      help: 'Chat and Responses requests naming a model no models[] entry matches: forwarded without compaction',
    }),
    overBudget: new Counter({ ...r, name: 'recap_over_budget_total', help: 'Requests forwarded over their budget: the newest step alone does not fit', labelNames: ['model'] }),
    tenantBudgetExceeded: new Counter({
      ...r,
      name: 'recap_tenant_budget_exceeded_total',
      help: 'Compactions that fell back to window because a tenant spent its summarizer budget',
    }),
    events: new Counter({
      ...r,
      name: 'recap_events_total',
      help: 'Conversation events (and background spend counts) by outcome: written, queue_full (dropped), store_error (dropped)',
      labelNames: ['outcome'],
    }),
    storeUnreadable: new Counter({
      ...r,
      name: 'recap_store_unreadable_total',
      help: 'Event log entries skipped because they could not be read back (event, entry, index_member)',
      labelNames: ['kind'],
    }),
    storeErrors: new Counter({ ...r, name: 'recap_store_errors_total', help: 'Store operations that failed (served without records)', labelNames: ['op'] }),
    storeDuration: new Histogram({ ...r, name: 'recap_store_duration_seconds', help: 'Store operation latency', labelNames: ['op'], buckets: LATENCY_BUCKETS }),
    upstreamDuration: new Histogram({
      ...r,
      name: 'recap_upstream_headers_seconds',
      help: 'Time from forwarding to the upstream response headers',
      labelNames: ['upstream'],
      buckets: LATENCY_BUCKETS,
    }),
    ledgerIdentifiers: new Counter({
      ...r,
      name: 'recap_ledger_identifiers_total',
      help: 'Identifiers of new summaries: kept by the summarizer, appended by recap in the ledger, dropped for size',
      labelNames: ['model', 'outcome'],
    }),
    recalls: new Counter({
      ...r,
      name: 'recap_recalls_total',
      help: 'recap_recall calls by outcome: handle, passages, nothing, bad_arguments, no_room; unanswered (past what the room or the per-reply bound let a continuation carry)',
      labelNames: ['model', 'outcome'],
    }),
    recallHops: new Histogram({
      ...r,
      name: 'recap_recall_hops',
      help: 'Continuations sent for one reply that called recap_recall',
      labelNames: ['model'],
      buckets: [1, 2, 3, 5, 10],
    }),
    calibration: new Gauge({
      ...r,
      name: 'recap_calibration_ratio',
      help: 'Smoothed ratio of upstream-reported to estimated prompt tokens',
      labelNames: ['model'],
      aggregator: 'average',
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Reports the size of the cache of seen items (body/seen-items.ts) on every scrape. */
export function watchSeenItems(metrics: Metrics, seen: { readonly bytes: number; readonly entries: number }): void {
  const r = { registers: [metrics.registry] };
  new Gauge({
    ...r,
    name: 'recap_seen_items_bytes',
    help: 'Memory the conversation items kept parsed take (estimated bytes)',
    collect() {
      this.set(seen.bytes);
    },
  });
  new Gauge({
    ...r,
    name: 'recap_seen_items',
    help: 'Conversation items kept parsed, so that a request parses only what is new in it',
    collect() {
      this.set(seen.entries);
    },
  });
}

/** Counts the identifiers of one new summary by what became of them (the ledger, compaction/ledger.ts). */
export function countLedger(metrics: Metrics, model: string, counts: { kept: number; appended: number; dropped: number }): void {
  metrics.ledgerIdentifiers.inc({ model, outcome: 'kept' }, counts.kept);
  metrics.ledgerIdentifiers.inc({ model, outcome: 'appended' }, counts.appended);
  metrics.ledgerIdentifiers.inc({ model, outcome: 'dropped' }, counts.dropped);
}

/** Times an async operation into a histogram (seconds), whether it resolves or throws. */
export async function timed<T>(h: Histogram<string>, labels: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const end = h.startTimer(labels);
  try {
    return await fn();
  } finally {
    end();
  }
}
