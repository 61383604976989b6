import { lastPerItem, oncePerItem } from '../../body/once-per-item.js';
import { withMember } from '../../body/splice.js';
import { clearedStubText } from '../../compaction/clearing.js';
import type { NeutralCall, NeutralItem } from '../../compaction/items.js';
import { contentText } from '../../compaction/text.js';
import type { ChatMessage } from '../../messages/types.js';
import type { WireItems } from '../format.js';

// Chat messages as the engine sees them (compaction/items.ts), and the chat form of what recap
// writes into a view: a cleared tool result.

export function describeChatMessage(m: ChatMessage): NeutralItem {
  switch (m.role) {
    case 'system':
    case 'developer':
      return { kind: 'instruction', calls: [], resultOf: null };
    case 'user':
      return { kind: 'user', calls: [], resultOf: null };
    case 'assistant':
      return { kind: 'assistant', calls: callIdsOf(m), resultOf: null };
    case 'tool':
      return { kind: 'result', calls: [], resultOf: typeof m.tool_call_id === 'string' ? m.tool_call_id : null };
    // The legacy function result answers the assistant message right before it (no id).
    case 'function':
      return { kind: 'result', calls: [], resultOf: null };
    default:
      return { kind: 'other', calls: [], resultOf: null };
  }
}

/** The calls of an assistant message that have an id: read directly, without their arguments (there may be 200k). */
function callIdsOf(m: ChatMessage): NeutralCall[] {
  const calls: NeutralCall[] = [];
  for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    if (tc === null || typeof tc !== 'object' || typeof tc.id !== 'string') continue;
    const name = (tc.function as { name?: unknown } | null | undefined)?.name;
    calls.push({ id: tc.id, name: typeof name === 'string' ? name : '?' });
  }
  return calls;
}

/** A cleared tool result (rule 11): its content replaced by the stub. */
export function clearedToolResult(m: ChatMessage, toolName: string | null, recall = false): ChatMessage {
  const callId = typeof m.tool_call_id === 'string' ? m.tool_call_id : null;
  return withMember(m, 'content', clearedStubText(toolName ?? (typeof m.name === 'string' ? m.name : null), callId, contentText(m.content), recall));
}

/** The chat route's items for the engine (pipeline/wire.ts). */
export const chatWire: WireItems<ChatMessage> = {
  route: 'chat',
  describe: oncePerItem(describeChatMessage),
  summaryItem: (sealed) => ({ role: 'system', content: sealed }),
  sealedTextOf: (m) => (m.role === 'system' ? contentText(m.content) : null),
  cleared: lastPerItem(clearedToolResult),
  asChat: (m) => m,
};
