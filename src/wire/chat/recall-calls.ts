import type { ChatMessage, ToolCall } from '../../messages/types.js';
import { recallCallId } from '../../recall/call-id.js';
import { isObj, type Obj } from '../../recall/json-object.js';
import { RECALL_TOOL_NAME } from '../../recall/tool.js';
import type { ReplyCalls } from '../../recall/wire.js';

// The recall calls of a chat reply's message, whole (recall.ts) or put together from a stream's deltas (recall-stream.ts).

/** A call named recap_recall is recap's, whatever else is wrong with it (its id, its arguments): the client never sees one. */
function isRecall(call: unknown): call is Obj & { function: Obj } {
  return isObj(call) && isObj(call.function) && call.function.name === RECALL_TOOL_NAME;
}

/** A chat message's recall calls, with the message cut down to them, or null when it makes none. */
export function chatReplyCalls(message: Obj | null): ReplyCalls<ChatMessage> | null {
  const calls = message && Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : [];
  const recalls = calls.filter(isRecall);
  if (recalls.length === 0) return null;
  // A call without a usable id gets one of recap's: its answer must name the call it answers.
  const resent: ToolCall[] = recalls.map((c) => ({
    ...c,
    id: typeof c.id === 'string' && c.id !== '' ? c.id : recallCallId(),
    type: 'function',
    function: { ...c.function, name: RECALL_TOOL_NAME, arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments ?? null) },
  }));
  const content = typeof message?.content === 'string' ? message.content : null;
  const assistantWith = (n: number): ChatMessage[] => [{ role: 'assistant', content, tool_calls: resent.slice(0, n) }];
  return {
    calls: resent.map((c, i) => ({ id: c.id, arguments: recalls[i]!.function.arguments })),
    assistant: assistantWith(resent.length),
    assistantWith,
    dropped: calls.length - recalls.length,
  };
}
