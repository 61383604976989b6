import type { Prices } from '../compaction/cost.js';
import type { PricingConfig } from '../config/schema.js';

export type { Prices } from '../compaction/cost.js';

// Prices per token, from the config's prices per million tokens. A missing cached price means no
// discount for cached input; a missing write price means writing costs what input costs.

/** What a request used, split the way providers bill it. */
export interface BilledTokens {
  /** The whole prompt: cached + written + the rest. */
  prompt: number;
  cached: number;
  written: number;
  output: number;
}

const PER_MILLION = 1_000_000;

export function pricesOf(p: PricingConfig): Prices {
  return {
    input: p.input / PER_MILLION,
    cachedInput: (p.cached_input ?? p.input) / PER_MILLION,
    cacheWrite: (p.cache_write ?? p.input) / PER_MILLION,
    output: p.output / PER_MILLION,
  };
}

/** The prompt's cost alone: cached part, written part, the rest at the input price. */
export function inputCost(prices: Prices, t: Omit<BilledTokens, 'output'>): number {
  const cached = Math.min(t.cached, t.prompt);
  const written = Math.min(t.written, t.prompt - cached);
  return cached * prices.cachedInput + written * prices.cacheWrite + (t.prompt - cached - written) * prices.input;
}

export function costOf(prices: Prices, t: BilledTokens): number {
  return inputCost(prices, t) + t.output * prices.output;
}
