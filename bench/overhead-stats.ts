// Percentiles of latency samples, in milliseconds rounded to microseconds.

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Nearest-rank percentile of an already sorted array. */
function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round3(nearestRank(sorted, 50)),
    p95: round3(nearestRank(sorted, 95)),
    p99: round3(nearestRank(sorted, 99)),
    max: round3(sorted.at(-1) ?? Number.NaN),
  };
}

export function median(samples: readonly number[]): number {
  return summarize(samples).p50;
}
