import type { ModelConfig } from '../../config/config.js';
import { type NoOffer, recallRefusal } from '../../recall/offer.js';
import { RESPONSES_RECALL_TOOL_JSON } from '../../recall/tool.js';
import { recallTokensAfterFunctions } from '../../recall/tool-tokens.js';
import type { TokenCounter } from '../../tokens/counter.js';
import type { RecallOffer } from '../format.js';
import { rawToolsTokens } from './count.js';
import { isCompactable } from './parse-request.js';
import type { ResponsesRequest } from './types.js';

// Whether a Responses request may be offered recap_recall, and what its definition costs. Besides
// the rules of every route (recall/offer.ts): never where the provider keeps the conversation
// (`previous_response_id`, `conversation`: recap does not see the history it would recall from) or
// runs the response in the background (no reply to answer the calls inside), and never beside a
// tool_choice that forces a hosted tool (file_search, mcp, a custom tool…): the model could not call it.

const RECALL_TOOL: unknown = JSON.parse(RESPONSES_RECALL_TOOL_JSON);

export function responsesRecallRefusal(model: ModelConfig | undefined, body: ResponsesRequest): NoOffer | 'stateful' | null {
  if (!isCompactable(body) || body.background === true) return 'stateful';
  const choice = body.tool_choice;
  if (choice !== null && typeof choice === 'object' && !['function', 'allowed_tools'].includes(String((choice as { type?: unknown }).type))) return 'tool_choice';
  return recallRefusal(model, { toolChoice: choice, tools: body.tools });
}

/** What recap_recall costs a request that may be offered it, else undefined. */
export function responsesRecallOffer(
  model: ModelConfig,
  body: ResponsesRequest,
  counted: { counter: TokenCounter; toolsTokens: number; rawTools: number },
  scale: (tokens: number) => number,
): RecallOffer | undefined {
  if (responsesRecallRefusal(model, body) !== null) return undefined;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const { rawTools } = counted;
  // After function tools, a constant; without any (none, or hosted tools only: few), counted.
  const hasFunctions = tools.some((t) => (t as { type?: unknown } | null)?.type === 'function');
  const raw = hasFunctions ? recallTokensAfterFunctions(counted.counter) : rawToolsTokens(counted.counter, body, [...tools, RECALL_TOOL]) - rawTools;
  return { rawToolTokens: raw, toolTokens: scale(rawTools + raw) - counted.toolsTokens };
}
