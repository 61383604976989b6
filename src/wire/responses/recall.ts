import { replaceDocumentMembers, spliceArray } from '../../body/splice.js';
import { isObj } from '../../recall/json-object.js';
import { RESPONSES_RECALL_TOOL_JSON } from '../../recall/tool.js';
import type { RecallWire } from '../../recall/wire.js';
import type { ResponsesBody } from './parse-request.js';
import { responsesReplyCalls, withoutCalls } from './recall-items.js';
import { responsesEventWithUsage, responsesStreamReading } from './recall-stream.js';
import type { ResponseItem } from './types.js';

// The Responses API form of recap_recall (rule 13): the tool goes after the client's `tools` as a
// function tool; a reply's calls are its `function_call` output items named recap_recall; a
// continuation's input is the forwarded input, the reply's output items (recall-items.ts) and one
// `function_call_output` item answering each call.

export const responsesRecall: RecallWire<ResponseItem, ResponsesBody> = {
  body: (parsed, items) => spliceArray(parsed, 'input', parsed.body.input as ResponseItem[], items, { key: 'tools', elementJson: RESPONSES_RECALL_TOOL_JSON }),
  replyCalls: (reply) => responsesReplyCalls(isObj(reply) ? reply.output : undefined),
  usageOf: (reply) => (isObj(reply) ? reply.usage : undefined),
  resultItem: (callId, text) => ({ type: 'function_call_output', call_id: callId, output: text }),
  finalReply(raw, reply, usage, strip) {
    const values = new Map<string, unknown>();
    if (usage !== undefined) values.set('usage', usage);
    if (strip && isObj(reply)) values.set('output', withoutCalls(reply.output));
    return values.size === 0 ? raw : replaceDocumentMembers(raw, values);
  },
  readStream: responsesStreamReading,
  eventWithUsage: responsesEventWithUsage,
};
