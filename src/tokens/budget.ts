import type { ModelConfig } from '../config/schema.js';

// How many prompt tokens a request may carry (design rule 3):
// context_window − output reservation − tools tokens for its messages, context_window − output
// reservation for the whole prompt (tool definitions included). The reservation is what the reply may use:
// the request's max_completion_tokens, else its max_tokens, else its max_output_tokens (Responses
// API), else the model's max_output_tokens.
// An explicit `budget` in the model config replaces the whole computation (reservation and tools
// included), for upstreams whose real limit is lower than the context window suggests (rate
// limits, proxies, cost caps).

export type BudgetSource = 'model_budget' | 'max_completion_tokens' | 'max_tokens' | 'request_max_output_tokens' | 'max_output_tokens';

/** The output limits a request may set: chat completions' two, the Responses API's one. */
export interface OutputLimits {
  max_completion_tokens?: unknown;
  max_tokens?: unknown;
  max_output_tokens?: unknown;
}

export interface Budget {
  /** Tokens the messages (reply priming included) may use, tools already taken out; never negative. */
  budget: number;
  /**
   * Tokens the whole prompt may use, tool definitions included: what planning leaves the messages
   * plus the tools. x-recap-budget, measured like x-recap-tokens-out (which counts the tools too).
   */
  prompt: number;
  /** Tokens kept free for the reply. */
  outputReservation: number;
  /** What decided the budget: the model's explicit budget, or where the reservation came from. */
  source: BudgetSource;
}

/** A usable token limit from the wire: a positive finite number (null, strings, NaN do not count). */
function limit(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;
}

function reservation(model: ModelConfig, req: OutputLimits): { tokens: number; source: BudgetSource } {
  const maxCompletion = limit(req.max_completion_tokens);
  if (maxCompletion !== undefined) return { tokens: maxCompletion, source: 'max_completion_tokens' };
  const maxTokens = limit(req.max_tokens);
  if (maxTokens !== undefined) return { tokens: maxTokens, source: 'max_tokens' };
  const maxOutput = limit(req.max_output_tokens);
  if (maxOutput !== undefined) return { tokens: maxOutput, source: 'request_max_output_tokens' };
  return { tokens: model.max_output_tokens, source: 'max_output_tokens' };
}

export function resolveBudget(model: ModelConfig, req: OutputLimits, toolsTokens: number): Budget {
  const reserved = reservation(model, req);
  const tools = Math.max(0, toolsTokens);
  if (model.budget !== undefined) {
    return { budget: model.budget, prompt: model.budget + tools, outputReservation: reserved.tokens, source: 'model_budget' };
  }
  const prompt = Math.max(0, model.context_window - reserved.tokens);
  return { budget: Math.max(0, prompt - tools), prompt, outputReservation: reserved.tokens, source: reserved.source };
}
