import { LRUCache } from 'lru-cache';

// Per-model, per-tenant correction of recap's token estimate, learnt from the `usage.prompt_tokens`
// that upstreams report (design rule 3). For models counted with the `estimate` encoding the
// heuristic is off by a factor that depends on the text (code, prose, other scripts): each tenant
// sends its own kind of text, so each tenant learns its own factor, and one tenant's traffic never
// moves another's counting (a hostile tenant could otherwise push a shared factor to a bound and
// make every other tenant's prompts overflow the window, or be summarized when they fit).
//
// - A tenant's factor starts from the model's shared prior at its first sane observation, and from
//   then on moves with that tenant's observations only.
// - The prior (what a tenant without observations of its own is counted with) learns from the
//   first PRIOR_OBSERVATIONS observations of each tenant only, each by a small step: one tenant
//   moves it by at most a factor of PRIOR_MAX_SHIFT (~1.09) however much it sends.
// - Updates are outlier-robust: a moving average in log space whose step is clipped to MAX_STEP,
//   so no single response moves a factor by more than ~4.6%.
// - Factors stay within [MIN_FACTOR, MAX_FACTOR]: no tokenizer differs more than that from the
//   estimate. Observations are used only when sane: both counts positive, the estimate large
//   enough that per-request framing does not dominate, the ratio within [MIN_RATIO, MAX_RATIO].
//
// Observe with the estimate of what was *forwarded* (before calibration), and the actual count of
// that same request.

export const MIN_FACTOR = 0.5;
export const MAX_FACTOR = 2.0;
const MIN_RATIO = 1 / 3;
const MAX_RATIO = 3;
const MIN_ESTIMATE = 32;
/** Weight of each new observation of a tenant on its own factor. */
const SMOOTHING = 0.2;
/** The largest distance (natural log) an observation is taken to be from the current factor. */
const MAX_STEP = Math.log(1.25);
/** Observations of each tenant that teach the prior, and the weight of each. */
export const PRIOR_OBSERVATIONS = 8;
const PRIOR_SMOOTHING = 0.05;
/** The most one tenant's traffic moves the prior, as a factor. */
export const PRIOR_MAX_SHIFT = Math.exp(PRIOR_OBSERVATIONS * PRIOR_SMOOTHING * MAX_STEP);
// Model names come from clients, tenants from credentials: bound what the process remembers.
const MAX_MODELS = 1024;
const MAX_TENANT_FACTORS = 10_000;

export interface Calibration {
  /** Feeds one request's estimated and actual prompt tokens, for `tenant` ('' for none); returns whether it was used. */
  observe(model: string, estimated: number, actual: number, tenant?: string): boolean;
  /** The factor `tenant`'s estimates of the model take: its own once it has observations, else the prior; 1 until anything is known. */
  factor(model: string, tenant?: string): number;
  /** The model's shared prior. */
  prior(model: string): number;
  /** The estimate corrected by the factor, rounded up. */
  apply(model: string, estimate: number, tenant?: string): number;
}

interface TenantFactor {
  log: number;
  observations: number;
}

function isSane(estimated: number, actual: number): boolean {
  if (!Number.isFinite(estimated) || !Number.isFinite(actual) || actual <= 0 || estimated < MIN_ESTIMATE) return false;
  const ratio = actual / estimated;
  return ratio >= MIN_RATIO && ratio <= MAX_RATIO;
}

const LOG_MIN = Math.log(MIN_FACTOR);
const LOG_MAX = Math.log(MAX_FACTOR);

/** `from` moved toward `to` by `weight`, the distance clipped to MAX_STEP, within the bounds (all natural logs). */
function step(from: number, to: number, weight: number): number {
  const distance = Math.max(-MAX_STEP, Math.min(MAX_STEP, to - from));
  return Math.max(LOG_MIN, Math.min(LOG_MAX, from + weight * distance));
}

export function createCalibration(): Calibration {
  const priors = new LRUCache<string, number>({ max: MAX_MODELS });
  const tenants = new LRUCache<string, TenantFactor>({ max: MAX_TENANT_FACTORS });
  const keyOf = (model: string, tenant: string) => `${model}\u0000${tenant}`;
  const priorLog = (model: string) => priors.get(model) ?? 0;
  const factor = (model: string, tenant = '') => Math.exp(tenants.get(keyOf(model, tenant))?.log ?? priorLog(model));
  return {
    observe(model, estimated, actual, tenant = '') {
      if (!isSane(estimated, actual)) return false;
      const observed = Math.log(actual / estimated);
      const key = keyOf(model, tenant);
      const own = tenants.get(key) ?? { log: priorLog(model), observations: 0 };
      if (own.observations < PRIOR_OBSERVATIONS) priors.set(model, step(priorLog(model), observed, PRIOR_SMOOTHING));
      tenants.set(key, { log: step(own.log, observed, SMOOTHING), observations: own.observations + 1 });
      return true;
    },
    factor,
    prior: (model) => Math.exp(priorLog(model)),
    apply: (model, estimate, tenant) => Math.ceil(estimate * factor(model, tenant)),
  };
}
