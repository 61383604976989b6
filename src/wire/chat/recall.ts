import { replaceDocumentMembers, spliceArray } from '../../body/splice.js';
import type { ChatMessage } from '../../messages/types.js';
import { isObj, type Obj } from '../../recall/json-object.js';
import { CHAT_RECALL_TOOL_JSON } from '../../recall/tool.js';
import type { RecallWire } from '../../recall/wire.js';
import type { ChatBody } from './parse-request.js';
import { chatReplyCalls } from './recall-calls.js';
import { chatEventWithUsage, chatStreamReading } from './recall-stream.js';

// The chat completions form of recap_recall (rule 13): the tool goes after the client's `tools`;
// a reply's calls are `choices[0].message.tool_calls` named recap_recall; a continuation carries
// the assistant message with those calls and one `tool` message answering each.

function firstMessage(reply: unknown): Obj | null {
  if (!isObj(reply) || !Array.isArray(reply.choices)) return null;
  const choice = reply.choices[0];
  return isObj(choice) && isObj(choice.message) ? choice.message : null;
}

/** The reply without tool calls, as a plain answer: what the client gets when the hop bound is reached. */
function withoutToolCalls(reply: Obj, usage: unknown): Obj {
  const choices = (reply.choices as unknown[]).map((choice) => {
    if (!isObj(choice) || !isObj(choice.message)) return choice;
    const { tool_calls: _calls, ...message } = choice.message;
    return { ...choice, message: { ...message, content: message.content ?? '' }, finish_reason: choice.finish_reason === 'tool_calls' ? 'stop' : choice.finish_reason };
  });
  return { ...reply, choices, ...(usage === undefined ? {} : { usage }) };
}

export const chatRecall: RecallWire<ChatMessage, ChatBody> = {
  body: (parsed, items) => spliceArray(parsed, 'messages', parsed.body.messages, items, { key: 'tools', elementJson: CHAT_RECALL_TOOL_JSON }),
  replyCalls: (reply) => chatReplyCalls(firstMessage(reply)),
  usageOf: (reply) => (isObj(reply) ? reply.usage : undefined),
  resultItem: (callId, text) => ({ role: 'tool', tool_call_id: callId, content: text }),
  finalReply(raw, reply, usage, strip) {
    if (strip && isObj(reply)) return Buffer.from(JSON.stringify(withoutToolCalls(reply, usage)));
    return usage === undefined ? raw : replaceDocumentMembers(raw, new Map([['usage', usage]]));
  },
  readStream: chatStreamReading,
  eventWithUsage: chatEventWithUsage,
};
