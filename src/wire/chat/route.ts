import type { WireRoute } from '../../http/compacting-handler.js';
import { spliceArray } from '../../json/splice.js';
import type { ChatMessage, ChatRequest } from '../../messages/types.js';
import { canForwardFirst } from '../../pipeline/forward-first.js';
import { chatPromptBound } from './forward-bound.js';
import type { AppDeps } from '../../runtime/deps.js';
import { type ChatBody, readChatRequest } from './parse-request.js';
import { chatRecall } from './recall.js';
import { chatStreamEnd } from './stream-end.js';

/** POST /v1/chat/completions: the chat wire format's part of the compacting route. */
export function chatRoute(deps: AppDeps): WireRoute<ChatRequest, ChatMessage, ChatBody> {
  return {
    itemsKey: 'messages',
    upstreamPath: '/chat/completions',
    read: (raw, pause, arrived) => readChatRequest(raw, pause, deps.seen, arrived),
    canForwardFirst: (parsed, model, headers, names) => canForwardFirst(parsed.body, (m) => chatPromptBound(parsed, deps.tokens.counterFor(m.encoding)), model, headers, names),
    compaction: deps.compaction,
    withView: (chat, view) => spliceArray(chat, 'messages', chat.body.messages, view),
    streamEnd: chatStreamEnd,
    recall: chatRecall,
  };
}
