import type { Config, ModelConfig } from '../config/config.js';
import type { Metrics } from '../observability/metrics.js';
import { type Budget, type OutputLimits, resolveBudget } from '../tokens/budget.js';
import { createTokenCache } from '../tokens/cache.js';
import { createCalibration } from '../tokens/calibration.js';
import { createTokenCounter, type TokenCounter } from '../tokens/counter.js';
import { type EncodingName, preloadEncodings } from '../tokens/encodings.js';

// Token accounting as the request path uses it: one counter per encoding sharing one bounded
// cache, the budget rule, and per-model calibration from the upstream's reported usage (rule 3).

export interface TokenService {
  counterFor(encoding: EncodingName): TokenCounter;
  /** Multiplies an estimate by the model's calibration factor for `tenant` (null: the shared prior), where calibration applies. */
  scaleFor(model: ModelConfig | undefined, tenant?: string | null): (tokens: number) => number;
  /** The counters of one tenant's requests: its own calibration (tokens/calibration.ts). */
  forTenant(tenant: string | null): Pick<TokenService, 'counterFor' | 'scaleFor'>;
  budgetFor(model: ModelConfig, req: OutputLimits, toolsTokens: number): Budget;
  /** The upstream reported `actual` prompt tokens for a prompt of `tenant`'s recap estimated (uncalibrated) at `estimated`. */
  observe(model: ModelConfig, estimated: number, actual: number, tenant: string | null): void;
}

export function calibrates(model: ModelConfig): boolean {
  return model.calibrate ?? model.encoding === 'estimate';
}

export function createTokenService(config: Config, metrics: Metrics): TokenService {
  // Ranks load at boot, not on the first request.
  preloadEncodings(new Set<EncodingName>(['o200k_base', ...config.models.map((m) => m.encoding)]));
  const cache = createTokenCache(config.tokens);
  // Built on first use: a counter builds its encoding's rank table, which only the preloaded
  // encodings (the configured ones) should cost at boot.
  const counters = new Map<EncodingName, TokenCounter>();
  const calibration = createCalibration();
  const identity = (t: number) => t;
  const counterFor = (encoding: EncodingName) => {
    let counter = counters.get(encoding);
    if (counter === undefined) {
      counter = createTokenCounter({ encoding, cache });
      counters.set(encoding, counter);
    }
    return counter;
  };
  const scaleFor = (model: ModelConfig | undefined, tenant: string | null = null) => {
    if (!model || !calibrates(model)) return identity;
    const f = tenant === null ? calibration.prior(model.match) : calibration.factor(model.match, tenant);
    return f === 1 ? identity : (t: number) => Math.ceil(t * f);
  };
  return {
    counterFor,
    scaleFor,
    forTenant: (tenant) => ({ counterFor, scaleFor: (model) => scaleFor(model, tenant) }),
    budgetFor: (model, req, toolsTokens) => resolveBudget(model, req, toolsTokens),
    observe(model, estimated, actual, tenant) {
      calibration.observe(model.match, estimated, actual, tenant ?? '');
      // The shared prior: per-tenant factors are not metric labels (tenants are unbounded).
      metrics.calibration.set({ model: model.match }, calibration.prior(model.match));
    },
  };
}
