import { createModelResolver } from '../config/config.js';
import type { ModelConfig } from '../config/schema.js';
import { type Prices, pricesOf } from './prices.js';

// Which prices apply: a model's own `pricing`; for its summarizer, the summarizer model's own
// models[] entry, else `summarizer.pricing`, else the conversation model's prices (an upper bound
// when the summarizer is the usual cheaper model); on the shared prefix, the conversation model's.

const resolvers = new WeakMap<readonly ModelConfig[], (name: string) => ModelConfig | undefined>();

function resolverFor(models: ModelConfig[]): (name: string) => ModelConfig | undefined {
  let resolve = resolvers.get(models);
  if (!resolve) {
    resolve = createModelResolver(models);
    resolvers.set(models, resolve);
  }
  return resolve;
}

export function modelPrices(model: ModelConfig): Prices | undefined {
  return model.pricing ? pricesOf(model.pricing) : undefined;
}

/** The summarizer's prices for a model with prices; undefined when the model has none (cost is then not planned). */
export function summarizerPrices(models: ModelConfig[], model: ModelConfig): Prices | undefined {
  if (!model.pricing) return undefined;
  const s = model.compaction.summarizer;
  // On the shared prefix the conversation's own model summarizes, at its own prices.
  if (!s || s.shared_prefix || s.model === undefined) return pricesOf(model.pricing);
  const pricing = resolverFor(models)(s.model)?.pricing ?? s.pricing ?? model.pricing;
  return pricesOf(pricing);
}
