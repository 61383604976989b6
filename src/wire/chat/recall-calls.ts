import type { ChatMessage, ToolCall } from '../../messages/types.js';
import { isObj, type Obj } from '../../recall/json-object.js';
import { RECALL_TOOL_NAME } from '../../recall/tool.js';
import type { ReplyCalls } from '../../recall/wire.js';

// The recall calls of a chat reply's message, whole (recall.ts) or put together from a stream's deltas (recall-stream.ts).

function isRecall(call: unknown): call is ToolCall {
  return isObj(call) && isObj(call.function) && call.function.name === RECALL_TOOL_NAME && typeof call.id === 'string';
}

/** A chat message's recall calls, with the message cut down to them, or null when it makes none. */
export function chatReplyCalls(message: Obj | null): ReplyCalls<ChatMessage> | null {
  const calls = message && Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : [];
  const recalls = calls.filter(isRecall);
  if (recalls.length === 0) return null;
  const assistant: ChatMessage = { role: 'assistant', content: typeof message?.content === 'string' ? message.content : null, tool_calls: recalls };
  return { calls: recalls.map((c) => ({ id: c.id, arguments: c.function.arguments })), assistant: [assistant], dropped: calls.length - recalls.length };
}
