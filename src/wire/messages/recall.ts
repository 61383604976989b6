import type { JsonBody } from '../../body/json-body.js';
import { replaceDocumentMembers, spliceArray } from '../../body/splice.js';
import type { ModelConfig } from '../../config/config.js';
import { isObj } from '../../recall/json-object.js';
import { type NoOffer, recallRefusal } from '../../recall/offer.js';
import { RECALL_TOOL_DESCRIPTION, RECALL_TOOL_NAME, RECALL_TOOL_PARAMETERS } from '../../recall/tool.js';
import type { RecallWire } from '../../recall/wire.js';
import { messagesErrorEvent } from './errors.js';
import { joinRecallResults, recallResult, replyCallsOf, withoutToolUse } from './recall-content.js';
import { messagesEventWithUsage, messagesStreamReading } from './recall-stream.js';
import type { AnthropicMessage, MessagesRequest } from './types.js';

// The Anthropic form of recap_recall (rule 13): the tool goes after the client's `tools` as a
// client tool (name, description, input_schema), the same bytes on every turn; a reply's calls are
// its `tool_use` blocks named recap_recall; a continuation's messages are the forwarded ones, the
// reply's assistant turn (recall-content.ts) and one user message of tool_results. The client gets
// only the final reply: `stop_reason: tool_use` never reaches it for a recall alone.

export const MESSAGES_RECALL_TOOL_JSON = JSON.stringify({ name: RECALL_TOOL_NAME, description: RECALL_TOOL_DESCRIPTION, input_schema: RECALL_TOOL_PARAMETERS });

export interface MessagesBody extends JsonBody {
  body: MessagesRequest;
}

/** Why the request is not offered recall, or null: Anthropic's tool_choice `any` and `none`, or a forced other tool, leave the model no call of it. */
export function messagesRecallRefusal(model: ModelConfig | undefined, body: MessagesRequest): NoOffer | null {
  const choice = body.tool_choice as { type?: unknown; name?: unknown } | undefined | null;
  if (isObj(choice) && (choice.type === 'any' || choice.type === 'none' || (choice.type === 'tool' && choice.name !== RECALL_TOOL_NAME))) return 'tool_choice';
  return recallRefusal(model, { toolChoice: undefined, tools: body.tools });
}

export const messagesRecall: RecallWire<AnthropicMessage, MessagesBody> = {
  body: (parsed, items) => spliceArray(parsed, 'messages', parsed.body.messages, joinRecallResults(items), { key: 'tools', elementJson: MESSAGES_RECALL_TOOL_JSON }),
  replyCalls: (reply) => (isObj(reply) ? replyCallsOf(reply.content) : null),
  usageOf: (reply) => (isObj(reply) ? reply.usage : undefined),
  resultItem: recallResult,
  finalReply(raw, reply, usage, strip) {
    const values = new Map<string, unknown>();
    if (usage !== undefined) values.set('usage', usage);
    if (strip && isObj(reply)) {
      values.set('content', withoutToolUse(reply.content));
      values.set('stop_reason', 'end_turn');
    }
    return values.size === 0 ? raw : replaceDocumentMembers(raw, values);
  },
  readStream: messagesStreamReading,
  eventWithUsage: messagesEventWithUsage,
  errorEvent: messagesErrorEvent,
};
