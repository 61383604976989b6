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
  /** Multiplies an estimate by the model's calibration factor, where calibration applies. */
  scaleFor(model: ModelConfig | undefined): (tokens: number) => number;
  budgetFor(model: ModelConfig, req: OutputLimits, toolsTokens: number): Budget;
  /** The upstream reported `actual` prompt tokens for a prompt recap estimated (uncalibrated) at `estimated`. */
  observe(model: ModelConfig, estimated: number, actual: number): void;
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
  return {
    counterFor(encoding) {
      let counter = counters.get(encoding);
      if (counter === undefined) {
        counter = createTokenCounter({ encoding, cache });
        counters.set(encoding, counter);
      }
      return counter;
    },
    scaleFor(model) {
      if (!model || !calibrates(model)) return identity;
      const f = calibration.factor(model.match);
      return f === 1 ? identity : (t) => Math.ceil(t * f);
    },
    budgetFor: (model, req, toolsTokens) => resolveBudget(model, req, toolsTokens),
    observe(model, estimated, actual) {
      calibration.observe(model.match, estimated, actual);
      metrics.calibration.set({ model: model.match }, calibration.factor(model.match));
    },
  };
}
