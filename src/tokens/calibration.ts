import { LRUCache } from 'lru-cache';

// Per-model correction of recap's token estimate, learnt from the `usage.prompt_tokens` that
// upstreams report (design rule 3). For models counted with the `estimate` encoding the heuristic
// is off by a stable factor per tokenizer; for models with their exact encoding the factor stays
// near 1 and only absorbs small per-request framing differences.
//
// The factor is a ratio actual/estimated smoothed by an exponentially weighted moving average, so
// one odd response moves it little. It is bounded to [MIN_FACTOR, MAX_FACTOR]: no tokenizer
// differs more than that from the estimate, so a factor beyond it means bad observations, not a
// real tokenizer. Observations are used only when they are sane: both counts positive, the
// estimate large enough that the per-request framing does not dominate the ratio, and the ratio
// itself within [MIN_RATIO, MAX_RATIO] (outside it the upstream probably counted something else,
// such as a prompt it rewrote or cached).
//
// Observe with the estimate of what was *forwarded* (before calibration), and the actual count of
// that same request.

export const MIN_FACTOR = 0.5;
export const MAX_FACTOR = 2.0;
const MIN_RATIO = 1 / 3;
const MAX_RATIO = 3;
const MIN_ESTIMATE = 32;
const SMOOTHING = 0.2; // weight of each new observation
// Model names come from clients; bound how many the process remembers.
const MAX_MODELS = 1024;

export interface Calibration {
  /** Feeds one request's estimated and actual prompt tokens; returns whether it was used. */
  observe(model: string, estimated: number, actual: number): boolean;
  /** The current factor for the model; 1 until it has sane observations. */
  factor(model: string): number;
  /** The estimate corrected by the model's factor, rounded up. */
  apply(model: string, estimate: number): number;
}

function clamp(v: number): number {
  return Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, v));
}

function isSane(estimated: number, actual: number): boolean {
  if (!Number.isFinite(estimated) || !Number.isFinite(actual) || actual <= 0 || estimated < MIN_ESTIMATE) return false;
  const ratio = actual / estimated;
  return ratio >= MIN_RATIO && ratio <= MAX_RATIO;
}

export function createCalibration(): Calibration {
  const factors = new LRUCache<string, number>({ max: MAX_MODELS });
  const factor = (model: string): number => factors.get(model) ?? 1;
  return {
    observe(model, estimated, actual) {
      if (!isSane(estimated, actual)) return false;
      const previous = factors.get(model);
      const ratio = actual / estimated;
      factors.set(model, clamp(previous === undefined ? ratio : previous + SMOOTHING * (ratio - previous)));
      return true;
    },
    factor,
    apply: (model, estimate) => Math.ceil(estimate * factor(model)),
  };
}
