import { splitCountName } from '../store/event-counts.js';
import { BUCKET_MS, type Resolution, type StatsBucket } from '../store/event-log.js';

// GET /recap/v1/overview: the count buckets of a time range (store/event-counts.ts names them
// `<model label>|<metric>`) as per-model figures, per bucket and in total, for the dashboard.

export const RANGES = {
  '1h': { ms: 3_600_000, resolution: 'minute' },
  '24h': { ms: 86_400_000, resolution: 'hour' },
  '7d': { ms: 7 * 86_400_000, resolution: 'hour' },
} as const satisfies Record<string, { ms: number; resolution: Resolution }>;
export type RangeName = keyof typeof RANGES;

export interface ModelFigures {
  requests: number;
  tokens_in: number;
  tokens_out: number;
  tokens_saved: number;
  projected_tokens_saved: number;
  summarizer_calls: number;
  summarizer_tokens: number;
  over_budget: number;
  errors: number;
  /** Requests by x-recap-action. */
  actions: Record<string, number>;
  /** Requests of audited models by x-recap-audit. */
  audit: Record<string, number>;
}

const PLAIN = ['requests', 'tokens_in', 'tokens_out', 'tokens_saved', 'projected_tokens_saved', 'summarizer_calls', 'summarizer_tokens', 'over_budget', 'errors'] as const;

function emptyFigures(): ModelFigures {
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
    actions: {},
    audit: {},
  };
}

function add(into: ModelFigures, metric: string, n: number): void {
  const [group, name] = metric.split('.', 2) as [string, string | undefined];
  if (name !== undefined && (group === 'action' || group === 'audit')) {
    const counts = group === 'action' ? into.actions : into.audit;
    counts[name] = (counts[name] ?? 0) + n;
  } else if ((PLAIN as readonly string[]).includes(metric)) {
    into[metric as (typeof PLAIN)[number]] += n;
  }
}

export interface Overview {
  bucket_seconds: number;
  /** Per model over the whole range. */
  totals: Record<string, ModelFigures>;
  buckets: { at: string; models: Record<string, ModelFigures> }[];
}

export function overviewOf(buckets: readonly StatsBucket[], resolution: Resolution): Overview {
  const totals: Record<string, ModelFigures> = {};
  const out: Overview['buckets'] = [];
  for (const bucket of buckets) {
    const models: Record<string, ModelFigures> = {};
    for (const [name, n] of Object.entries(bucket.counts)) {
      const { model, metric } = splitCountName(name);
      models[model] ??= emptyFigures();
      totals[model] ??= emptyFigures();
      add(models[model], metric, n);
      add(totals[model], metric, n);
    }
    out.push({ at: new Date(bucket.at).toISOString(), models });
  }
  return { bucket_seconds: BUCKET_MS[resolution] / 1000, totals, buckets: out };
}
