import { LATENCY_BOUNDS_MS, MONEY_SCALE, splitCountName } from '../store/event-counts.js';
import { BUCKET_MS, MINUTE_BUCKETS_KEPT_MS, type Resolution, type StatsBucket } from '../store/event-log.js';

// GET /recap/v1/overview: the count buckets of a time range (store/event-counts.ts names them
// `<model label>|<metric>`) as figures per model and per route, per bucket and in total, for the
// dashboard; latency percentiles are read from the histograms the counts keep.

export const RANGES = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
} as const satisfies Record<string, number>;
export type RangeName = keyof typeof RANGES;

/** The longest range one overview reads (hour buckets: at most this many reads). */
export const MAX_RANGE_MS = 90 * 86_400_000;

/** Minute buckets for a range that is short and recent enough to have them, else hour buckets. */
export function resolutionFor(from: number, to: number, now: number): Resolution {
  return to - from <= 3 * 3_600_000 && from >= now - MINUTE_BUCKETS_KEPT_MS ? 'minute' : 'hour';
}

export interface Figures {
  requests: number;
  tokens_in: number;
  tokens_out: number;
  tokens_saved: number;
  projected_tokens_saved: number;
  summarizer_calls: number;
  summarizer_tokens: number;
  over_budget: number;
  errors: number;
  recalls: number;
  cached_tokens: number;
  /** Money, where prices are configured (currency units of the pricing). */
  cost: number;
  cost_saved: number;
  /** Audited models: what recap's views would have cost, and the difference from what was paid. */
  projected_cost: number;
  projected_cost_saved: number;
  /** Requests by x-recap-action. */
  actions: Record<string, number>;
  /** Requests of audited models by x-recap-audit. */
  audit: Record<string, number>;
  /** Histograms of the whole request's time and of recap's own part of it, by bucket (`le<ms>`, `inf`). */
  latency: Record<string, number>;
  own_latency: Record<string, number>;
}

const PLAIN = [
  'requests',
  'tokens_in',
  'tokens_out',
  'tokens_saved',
  'projected_tokens_saved',
  'summarizer_calls',
  'summarizer_tokens',
  'over_budget',
  'errors',
  'recalls',
  'cached_tokens',
] as const;
const MONEY = ['cost', 'cost_saved', 'projected_cost', 'projected_cost_saved'] as const;

export function emptyFigures(): Figures {
  return {
    requests: 0,
    tokens_in: 0,
    tokens_out: 0,
    tokens_saved: 0,
    projected_tokens_saved: 0,
    summarizer_calls: 0,
    summarizer_tokens: 0,
    over_budget: 0,
    errors: 0,
    recalls: 0,
    cached_tokens: 0,
    cost: 0,
    cost_saved: 0,
    projected_cost: 0,
    projected_cost_saved: 0,
    actions: {},
    audit: {},
    latency: {},
    own_latency: {},
  };
}

const GROUPS: Record<string, 'actions' | 'audit' | 'latency' | 'own_latency'> = { action: 'actions', audit: 'audit', latency: 'latency', own: 'own_latency' };

/** Adds one count to a model's figures; a `route.<name>.<metric>` count goes to that route's. */
function add(into: Figures, routes: Record<string, Figures> | undefined, metric: string, n: number): void {
  if (metric.startsWith('route.')) {
    const cut = metric.indexOf('.', 6);
    if (cut < 0 || !routes) return;
    const route = metric.slice(6, cut);
    routes[route] ??= emptyFigures();
    add(routes[route], undefined, metric.slice(cut + 1), n);
    return;
  }
  const dot = metric.indexOf('.');
  const group = dot < 0 ? undefined : GROUPS[metric.slice(0, dot)];
  if (group) {
    const name = metric.slice(dot + 1);
    into[group][name] = (into[group][name] ?? 0) + n;
  } else if ((PLAIN as readonly string[]).includes(metric)) {
    into[metric as (typeof PLAIN)[number]] += n;
  } else if ((MONEY as readonly string[]).includes(metric)) {
    into[metric as (typeof MONEY)[number]] += n / MONEY_SCALE;
  }
}

/** Sums figures (the per-route rows are summed over models; the chart sums over models). */
export function sumFigures(all: Iterable<Figures>): Figures {
  const total = emptyFigures();
  for (const f of all) {
    for (const k of PLAIN) total[k] += f[k];
    for (const k of MONEY) total[k] += f[k];
    for (const group of ['actions', 'audit', 'latency', 'own_latency'] as const) {
      for (const [name, n] of Object.entries(f[group])) total[group][name] = (total[group][name] ?? 0) + n;
    }
  }
  return total;
}

/**
 * The q-quantile (0 < q < 1) of a latency histogram, in ms: linear within the bucket it falls in,
 * as Prometheus's histogram_quantile does; the last finite bound when it falls above it. Null when empty.
 */
export function quantile(histogram: Record<string, number>, q: number): number | null {
  const counts = [...LATENCY_BOUNDS_MS.map((b) => histogram[`le${b}`] ?? 0), histogram.inf ?? 0];
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i]!;
    if (n > 0 && seen + n >= rank) {
      if (i === LATENCY_BOUNDS_MS.length) return LATENCY_BOUNDS_MS.at(-1)!;
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      const upper = LATENCY_BOUNDS_MS[i]!;
      return Math.round(lower + ((upper - lower) * (rank - seen)) / n);
    }
    seen += n;
  }
  return LATENCY_BOUNDS_MS.at(-1)!;
}

/** Figures as the API shows them: the histograms read as p50 and p95. */
export function figuresView(f: Figures) {
  const { latency, own_latency, ...rest } = f;
  return {
    ...rest,
    latency_ms: { p50: quantile(latency, 0.5), p95: quantile(latency, 0.95) },
    own_latency_ms: { p50: quantile(own_latency, 0.5), p95: quantile(own_latency, 0.95) },
  };
}

export interface Overview {
  bucket_seconds: number;
  /** Per model over the whole range. */
  totals: Record<string, Figures>;
  /** Per route over the whole range, every model's requests together. */
  routes: Record<string, Figures>;
  buckets: { at: string; models: Record<string, Figures> }[];
}

export function overviewOf(buckets: readonly StatsBucket[], resolution: Resolution): Overview {
  const totals: Record<string, Figures> = {};
  const routes: Record<string, Figures> = {};
  const out: Overview['buckets'] = [];
  for (const bucket of buckets) {
    const models: Record<string, Figures> = {};
    for (const [name, n] of Object.entries(bucket.counts)) {
      const { model, metric } = splitCountName(name);
      models[model] ??= emptyFigures();
      totals[model] ??= emptyFigures();
      add(models[model], {}, metric, n);
      add(totals[model], routes, metric, n);
    }
    out.push({ at: new Date(bucket.at).toISOString(), models });
  }
  return { bucket_seconds: BUCKET_MS[resolution] / 1000, totals, routes, buckets: out };
}
