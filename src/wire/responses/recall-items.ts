import { recallCallId } from '../../recall/call-id.js';
import { RECALL_TOOL_NAME } from '../../recall/tool.js';
import type { ReplyCalls } from '../../recall/wire.js';
import type { ResponseItem } from './types.js';

// What of a Responses reply that called recap_recall goes into the continuation (rule 13): its
// output items, less the other tool calls it made (dropped with it: the model makes them again once
// it has seen the recall) and less what the upstream would refuse to be given back: a reasoning
// item without its encrypted content (nothing to resend when the request does not store responses)
// and a reasoning item left without the output item it belongs to. Where a reasoning item goes,
// the items after it lose their `id`, which would name it as their missing companion.

export interface RecallOutput {
  /** The recap_recall calls: call_id and arguments as the model wrote them. */
  calls: { id: string; arguments: unknown }[];
  /** The reply's output items for the continuation. */
  items: ResponseItem[];
  /** Other tool calls dropped with the reply. */
  dropped: number;
}

const CLIENT_CALLS = new Set(['function_call', 'custom_tool_call']);

export function isRecallCall(item: ResponseItem): boolean {
  return item.type === 'function_call' && item.name === RECALL_TOOL_NAME;
}

/** Whether the item is one of the client's tool calls: the client runs those, and the held stream waits on them. */
export function isToolCall(item: ResponseItem): boolean {
  return CLIENT_CALLS.has(String(item.type));
}

/** A model output item a reasoning item may precede: an assistant message or a call. */
function isModelOutput(item: ResponseItem | undefined): boolean {
  if (!item) return false;
  const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined);
  return type === 'message' ? item.role === 'assistant' || item.role === undefined : typeof type === 'string' && type.endsWith('_call');
}

/** The recall calls of a reply's `output` and what the continuation carries of it, or null when it makes none. */
export function recallOutput(output: unknown): RecallOutput | null {
  if (!Array.isArray(output)) return null;
  // A recall call without a usable call_id gets one of recap's: its answer must name the call it answers.
  const items = output
    .filter((item): item is ResponseItem => item !== null && typeof item === 'object')
    .map((item) => (isRecallCall(item) && (typeof item.call_id !== 'string' || item.call_id === '') ? { ...item, call_id: recallCallId() } : item));
  const calls = items.filter(isRecallCall).map((c) => ({ id: c.call_id as string, arguments: c.arguments }));
  if (calls.length === 0) return null;
  const dropped = items.filter((item) => isToolCall(item) && !isRecallCall(item)).length;
  const kept = items.filter((item) => !(isToolCall(item) && !isRecallCall(item)));
  let lostReasoning = false;
  const usable = kept.filter((item, i) => {
    if (item.type !== 'reasoning') return true;
    const keep = typeof item.encrypted_content === 'string' && isModelOutput(kept.slice(i + 1).find((next) => next.type !== 'reasoning'));
    if (!keep) lostReasoning = true;
    return keep;
  });
  const withoutIds = usable.map((item) => {
    if (!lostReasoning || item.type === 'reasoning' || !('id' in item)) return item;
    const { id: _id, ...rest } = item;
    return rest as ResponseItem;
  });
  return { calls, items: withoutIds, dropped };
}

/** The output with every tool call taken out (the hop bound was reached: the client gets only the text). */
export function withoutCalls(output: unknown): unknown[] {
  if (!Array.isArray(output)) return [];
  const kept = output.filter((item) => !(item !== null && typeof item === 'object' && isToolCall(item)));
  return kept.filter((item, i) => item?.type !== 'reasoning' || isModelOutput(kept.slice(i + 1).find((next) => next?.type !== 'reasoning')));
}

/** The same in the shape the recall loop reads (recall/wire.ts). */
export function responsesReplyCalls(output: unknown): ReplyCalls<ResponseItem> | null {
  const found = recallOutput(output);
  if (!found) return null;
  const assistantWith = (n: number): ResponseItem[] => {
    const kept = new Set(found.calls.slice(0, n).map((c) => c.id));
    return found.items.filter((item) => !isRecallCall(item) || kept.has(item.call_id as string));
  };
  return { calls: found.calls, assistant: found.items, assistantWith, dropped: found.dropped };
}
