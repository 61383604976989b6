import type { ModelConfig } from '../config/config.js';
import type { CountedItems, ParsedRequest, PromptBound, WireFormat } from '../wire/format.js';
import type { TokenService } from './token-service.js';

// A request is counted once: reuse-first.ts counts it when the bytes of its new items cannot show
// that it goes upstream on its conversation's last decision, and prepare.ts plans with that count
// instead of making it again.

/** The request's count for a tenant's counters and a model, made on the first call. */
export type CountOnce<T> = (tenant: string, model: ModelConfig) => Promise<CountedItems<T>>;

export function countOnce<T, P extends ParsedRequest>(format: WireFormat<T, P>, parsed: P, tokens: Pick<TokenService, 'forTenant'>): CountOnce<T> {
  let made: { tenant: string; model: ModelConfig; counted: Promise<CountedItems<T>> } | undefined;
  return (tenant, model) => {
    if (made?.tenant !== tenant || made.model !== model) made = { tenant, model, counted: format.count(tokens.forTenant(tenant), parsed, model) };
    return made.counted;
  };
}

/** The prompt's tokens as counted (uncalibrated): the tightest bound forward-first.ts and reuse-first.ts can ask for. */
export function exactBound(counted: Pick<CountedItems<unknown>, 'rawOut' | 'rawTools'>): PromptBound {
  return { messages: counted.rawOut(null) - counted.rawTools, definitions: counted.rawTools };
}
