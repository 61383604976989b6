import { spliceArray } from '../../body/splice.js';
import type { ModelConfig } from '../../config/config.js';
import { jsonItemHash } from '../../conversation/canonical.js';
import type { CountedItems, RecallOffer, WireFormat } from '../format.js';
import { countMessagesRequest, rawToolsTokens } from './count.js';
import { messagesErrorBody } from './errors.js';
import { messagesPromptBound } from './forward-bound.js';
import { messagesWire } from './items.js';
import { readMessagesRequest } from './parse-request.js';
import { MESSAGES_RECALL_TOOL_JSON, type MessagesBody, messagesRecall, messagesRecallRefusal } from './recall.js';
import { messagesStreamEnd } from './stream-end.js';
import { messagesSharedPrefix } from './shared-prefix.js';
import type { AnthropicMessage } from './types.js';
import { withViewBreakpoints } from './view-breakpoints.js';

// POST /v1/messages, Anthropic's Messages API (Claude Code, the Anthropic SDKs): forwarded only to
// an upstream with `api: anthropic`. Only `messages` changes in a compacted request: `system`,
// `tools`, `thinking`, `context_management` and every other field go as sent (rule 12), and the
// view keeps the client's cache_control breakpoints on what it keeps, and moves one it lost to
// eviction onto recap's summary when that pays (breakpoints.ts).

const RECALL_TOOL: unknown = JSON.parse(MESSAGES_RECALL_TOOL_JSON);

function recallOffer(model: ModelConfig, { body }: MessagesBody, counted: CountedItems<AnthropicMessage>, scale: (n: number) => number): RecallOffer | undefined {
  if (messagesRecallRefusal(model, body) !== null) return undefined;
  const raw = rawToolsTokens(counted.counter, body, [...(body.tools ?? []), RECALL_TOOL]) - counted.rawTools;
  return { rawToolTokens: raw, toolTokens: scale(counted.rawTools + raw) - counted.toolsTokens };
}

export const messagesFormat: WireFormat<AnthropicMessage, MessagesBody> = {
  path: '/v1/messages',
  upstreamPath: '/messages',
  upstreamApi: 'anthropic',
  itemsKey: 'messages',
  items: messagesWire,
  read: readMessagesRequest,
  compactable: ({ body }) => body.messages,
  // `system` (pinned, outside the messages) and the first user message.
  opening({ body }, messages) {
    const out = body.system === undefined ? [] : [jsonItemHash({ system: body.system })];
    const first = messages.find((m) => messagesWire.describe(m).kind === 'user');
    return first ? [...out, jsonItemHash(first)] : out;
  },
  count: (counters, { body, run }, model) => countMessagesRequest(counters, body, model, run),
  recallOffer,
  promptBound: messagesPromptBound,
  withView: (parsed, view) => spliceArray(parsed, 'messages', parsed.body.messages, withViewBreakpoints(parsed.body, view)),
  streamEnd: messagesStreamEnd,
  recall: {
    ...messagesRecall,
    body: (parsed, items) => messagesRecall.body(parsed, withViewBreakpoints(parsed.body, items)),
  },
  sharedPrefix: messagesSharedPrefix,
  errorBody: messagesErrorBody,
};
