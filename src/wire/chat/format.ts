import { spliceArray } from '../../body/splice.js';
import type { ModelConfig } from '../../config/config.js';
import { leadingHashes } from '../../conversation/identify.js';
import { errorBody } from '../../errors.js';
import type { ChatMessage, ChatRequest } from '../../messages/types.js';
import { recallRefusal } from '../../recall/offer.js';
import { CHAT_RECALL_TOOL } from '../../recall/tool.js';
import { recallTokensAfterFunctions } from '../../recall/tool-tokens.js';
import type { TokenCounter } from '../../tokens/counter.js';
import type { CountedItems, RecallOffer, WireFormat } from '../format.js';
import { countChatRequest } from './count.js';
import { chatPromptBound } from './forward-bound.js';
import { chatWire } from './items.js';
import { type ChatBody, readChatRequest } from './parse-request.js';
import { chatRecall } from './recall.js';
import { chatStreamEnd } from './stream-end.js';
import { chatSharedPrefix } from './shared-prefix.js';

/** What recap_recall adds to a chat request's tools: after its own functions, one figure per encoding (tool-tokens.ts). */
function recallToolTokens(body: ChatRequest, counter: TokenCounter): number {
  const hasFunctions = Array.isArray(body.tools) && body.tools.some((t) => (t as { type?: unknown } | null)?.type === 'function');
  if (!hasFunctions) return counter.countTools({ model: body.model, messages: body.messages, tools: [CHAT_RECALL_TOOL] });
  return recallTokensAfterFunctions(counter);
}

/** What recap_recall costs a chat request that may be offered it (recall/offer.ts), else undefined. */
function chatRecallOffer(model: ModelConfig, { body }: ChatBody, t: CountedItems<ChatMessage>, scale: (n: number) => number): RecallOffer | undefined {
  if (recallRefusal(model, { toolChoice: body.tool_choice, n: body.n, tools: body.tools, functions: body.functions }) !== null) return undefined;
  const raw = recallToolTokens(body, t.counter);
  return { rawToolTokens: raw, toolTokens: scale(t.rawTools + raw) - t.toolsTokens };
}

/** POST /v1/chat/completions: OpenAI's chat completions API, its items the `messages`. */
export const chatFormat: WireFormat<ChatMessage, ChatBody> = {
  path: '/v1/chat/completions',
  upstreamPath: '/chat/completions',
  upstreamApi: 'openai',
  itemsKey: 'messages',
  items: chatWire,
  read: readChatRequest,
  compactable: ({ body }) => body.messages,
  // The pinned system/developer messages and the first user message.
  opening: (_parsed, messages) => leadingHashes(messages),
  count: (counters, { body, run }, model) => countChatRequest(counters, body, model, run),
  recallOffer: chatRecallOffer,
  promptBound: chatPromptBound,
  withView: (chat, view) => spliceArray(chat, 'messages', chat.body.messages, view),
  streamEnd: chatStreamEnd,
  recall: chatRecall,
  sharedPrefix: chatSharedPrefix,
  errorBody,
};
