import type { AppDeps } from '../deps.js';
import type { WireRoute } from '../http/compacting-handler.js';
import { canForwardFirst } from '../pipeline/forward-first.js';
import { parseChatRequest } from './parse-request.js';
import type { ChatMessage, ChatRequest } from './types.js';

/** POST /v1/chat/completions: the chat wire format's part of the compacting route. */
export function chatRoute(deps: AppDeps): WireRoute<ChatRequest, ChatMessage> {
  return {
    upstreamPath: '/chat/completions',
    parse: parseChatRequest,
    canForwardFirst,
    compaction: deps.compaction,
    withView: (_raw, body, view) => Buffer.from(JSON.stringify({ ...body, messages: view })),
  };
}
