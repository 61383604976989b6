import type { ChatRequest } from '../messages/types.js';
import type { ModelConfig } from '../config/schema.js';
import { resolveBudget } from './budget.js';
import { createTokenCounter, type TokenCounter } from './counter.js';
import type { EncodingName } from './encodings.js';

// The `recap count` result: a request body's prompt tokens as the proxy would count them, its
// budget and each part's share, so that the parts add up to the total. Contract: {"prompt_tokens",
// "budget", "messages": [{"index", "role", "tokens"}]}; priming_tokens and tools_tokens added.

export interface MessageTokens {
  index: number;
  role: string;
  tokens: number;
}

export interface RequestCount {
  /** Messages (reply priming included) plus tools/functions/response_format definitions. */
  prompt_tokens: number;
  /** Tokens the whole prompt may use, tools included (as x-recap-budget); null when no model config matches the request. */
  budget: number | null;
  /** The tokens that prime the reply (`<|start|>assistant<|message|>`), counted once per request. */
  priming_tokens: number;
  /** tools / functions / response_format definitions. */
  tools_tokens: number;
  messages: MessageTokens[];
}

// A model recap has no config for is most likely a current OpenAI model.
const DEFAULT_ENCODING: EncodingName = 'o200k_base';

function encodingFor(model: ModelConfig | undefined): EncodingName {
  return model?.encoding ?? DEFAULT_ENCODING;
}

export function countRequest(body: ChatRequest, model: ModelConfig | undefined, counter: TokenCounter = createTokenCounter({ encoding: encodingFor(model) })): RequestCount {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const counts = counter.countMessages(messages);
  const toolsTokens = counter.countTools(body);
  const messageTokens = counts.perMessage.reduce((a, b) => a + b, 0);
  return {
    prompt_tokens: counts.total + toolsTokens,
    budget: model === undefined ? null : resolveBudget(model, body, toolsTokens).prompt,
    priming_tokens: counts.total - messageTokens,
    tools_tokens: toolsTokens,
    messages: counts.perMessage.map((tokens, index) => ({ index, role: String(messages[index]?.role ?? ''), tokens })),
  };
}
