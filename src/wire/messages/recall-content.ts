import { RECALL_TOOL_NAME } from '../../recall/tool.js';
import type { ReplyCalls } from '../../recall/wire.js';
import type { AnthropicMessage, ContentBlock } from './types.js';

// What of an Anthropic reply that called recap_recall goes into the continuation (rule 13): the
// assistant turn with its thinking (signed: returned as it came, which a tool loop with thinking
// requires), text and recap_recall calls; the client's own tool calls in the same reply are dropped
// with it (the model makes them again once it has seen the recall). Each call is answered by a
// tool_result; all the results of one turn go in one user message, as Anthropic requires.

const isBlock = (v: unknown): v is ContentBlock => v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string';

export const isRecallUse = (b: ContentBlock): boolean => b.type === 'tool_use' && b.name === RECALL_TOOL_NAME;

export function replyCallsOf(content: unknown): ReplyCalls<AnthropicMessage> | null {
  if (!Array.isArray(content)) return null;
  const blocks = content.filter(isBlock);
  const calls = blocks.filter(isRecallUse).map((b) => ({ id: String(b.id), arguments: JSON.stringify(b.input ?? {}) }));
  if (calls.length === 0) return null;
  const dropped = blocks.filter((b) => b.type === 'tool_use' && !isRecallUse(b)).length;
  // With the first `n` recall calls only: those a continuation has room to answer.
  const assistantWith = (n: number): AnthropicMessage[] => {
    let seen = 0;
    const kept = blocks.filter((b) => b.type !== 'tool_use' || (isRecallUse(b) && seen++ < n));
    return [{ role: 'assistant', content: kept }];
  };
  return { calls, assistant: assistantWith(calls.length), assistantWith, dropped };
}

/** The content without its tool calls (the hop bound was reached: the client gets the rest). */
export function withoutToolUse(content: unknown): unknown[] {
  return Array.isArray(content) ? content.filter((b) => !(isBlock(b) && b.type === 'tool_use')) : [];
}

// The results recap wrote, to join those of one turn into one message.
const recallResults = new WeakSet<AnthropicMessage>();

export function recallResult(callId: string, text: string): AnthropicMessage {
  const m: AnthropicMessage = { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: text }] };
  recallResults.add(m);
  return m;
}

/** `items` with consecutive results recap wrote joined into one user message each. */
export function joinRecallResults(items: readonly AnthropicMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  for (const item of items) {
    const last = out.at(-1);
    if (last && recallResults.has(item) && recallResults.has(last)) {
      const joined: AnthropicMessage = { role: 'user', content: [...(last.content as ContentBlock[]), ...(item.content as ContentBlock[])] };
      recallResults.add(joined);
      out[out.length - 1] = joined;
    } else out.push(item);
  }
  return out;
}
