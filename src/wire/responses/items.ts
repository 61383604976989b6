import { lastPerItem, oncePerItem } from '../../body/once-per-item.js';
import { withMember } from '../../body/splice.js';
import { stringifyJson } from '../../body/stringify.js';
import { clearedStubText } from '../../compaction/clearing.js';
import type { NeutralItem } from '../../compaction/items.js';
import { contentText } from '../../compaction/text.js';
import type { ChatMessage, ContentPart } from '../../messages/types.js';
import type { WireItems } from '../format.js';
import type { ResponseItem } from './types.js';

// Responses API input items as the engine sees them (compaction/items.ts). A message counts by its
// role; a tool call (`function_call`, `custom_tool_call`, any other `*_call` with a `call_id`) opens
// a step whose outputs (`*_output` with the same `call_id`) belong to it; `reasoning` is assistant
// output and travels with the step it precedes, so it is kept or dropped with it and never altered.
// For the summarizer's transcript, the template and the ledger, items are read as chat messages;
// reasoning is never shown to them as text. Values a client sent are written as JSON without
// recursion (body/stringify.ts): arguments, inputs and outputs may nest thousands of levels deep.

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The item's type; an item without one is a message when it has a role. A type that is not a string is no type recap knows. */
function kindOf(item: ResponseItem): string {
  const type: unknown = item.type;
  if (type === undefined || type === null) return item.role !== undefined ? 'message' : 'unknown';
  return typeof type === 'string' ? type : 'unknown';
}

function isOutput(type: string): boolean {
  return type.endsWith('_output') || type === 'mcp_approval_response';
}

export function describeResponseItem(item: ResponseItem): NeutralItem {
  const type = kindOf(item);
  if (type === 'message') {
    if (item.role === 'system' || item.role === 'developer') return { kind: 'instruction', calls: [], resultOf: null };
    if (item.role === 'user') return { kind: 'user', calls: [], resultOf: null };
    if (item.role === 'assistant') return { kind: 'assistant', calls: [], resultOf: null };
    return { kind: 'other', calls: [], resultOf: null };
  }
  if (isOutput(type)) return { kind: 'result', calls: [], resultOf: str(item.call_id) ?? str(item['approval_request_id']) };
  if (type === 'reasoning') return { kind: 'assistant', calls: [], resultOf: null };
  if (type.endsWith('_call') || type === 'mcp_approval_request') {
    const id = type === 'mcp_approval_request' ? str(item['id']) : str(item.call_id);
    return { kind: 'assistant', calls: id === null ? [] : [{ id, name: str(item.name) ?? type }], resultOf: null };
  }
  return { kind: 'other', calls: [], resultOf: null };
}

/** Input or output content parts as chat content parts (text, images, files, audio). */
function chatParts(content: unknown): string | ContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter(isObject).map((p): ContentPart => {
    const text = str(p.text) ?? str(p.refusal);
    if (text !== null) return { type: 'text', text };
    if (p.type === 'input_image')
      return { type: 'image_url', image_url: { url: str(p.image_url) ?? '', ...(p.detail === 'low' || p.detail === 'high' ? { detail: p.detail } : {}) } };
    if (p.type === 'input_file') return { type: 'file' };
    if (p.type === 'input_audio') return { type: 'input_audio' };
    return { type: str(p.type) ?? 'unknown' };
  });
}

/** The text of a result's output, as the summarizer reads it. */
const outputText = (output: unknown): string => contentText(chatParts(output));

function toolCall(id: string, name: string, args: unknown): ChatMessage {
  return { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : stringifyJson(args ?? {}) } }] };
}

/**
 * An item as a chat message of the same cost and meaning: what recap counts tokens of, and what it
 * shows the summarizer. `reasoning` is counted by its text (its summary and encrypted content,
 * opaque to recap: calibration from the reported usage corrects the estimate).
 */
export function asChatMessage(item: ResponseItem): ChatMessage {
  const type = kindOf(item);
  if (type === 'message') return { role: str(item.role) ?? 'user', content: chatParts(item.content) };
  if (type === 'function_call') return toolCall(str(item.call_id) ?? '', str(item.name) ?? 'function', item.arguments);
  if (type === 'custom_tool_call') return toolCall(str(item.call_id) ?? '', str(item.name) ?? 'tool', item.input);
  if (isOutput(type)) {
    const output = item.output ?? item['approve'] ?? '';
    return {
      role: 'tool',
      tool_call_id: str(item.call_id) ?? str(item['approval_request_id']) ?? '',
      content: typeof output === 'string' ? output : Array.isArray(output) ? chatParts(output) : stringifyJson(output),
    };
  }
  if (type === 'reasoning') {
    const summary = Array.isArray(item['summary']) ? item['summary'].filter(isObject).map((s) => str(s.text) ?? '') : [];
    return { role: 'assistant', content: [...summary, str(item['encrypted_content']) ?? ''].filter(Boolean).join('\n') };
  }
  const { type: _type, id: _id, status: _status, call_id: callId, ...rest } = item;
  return toolCall(str(callId) ?? '', type, rest);
}

/** The Responses route's items for the engine (pipeline/wire.ts). */
export const responsesWire: WireItems<ResponseItem> = {
  route: 'responses',
  describe: oncePerItem(describeResponseItem),
  // One system message item right after the pinned block, as the chat route's summary.
  summaryItem: (sealed) => ({ type: 'message', role: 'system', content: sealed }),
  sealedTextOf(item) {
    if (kindOf(item) !== 'message' || item.role !== 'system') return null;
    const content = chatParts(item.content);
    return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('\n');
  },
  cleared: lastPerItem((item: ResponseItem, toolName: string | null, recall: boolean): ResponseItem => {
    // Only a text output can be stubbed; any other (a screenshot, say) is left as it is.
    if (typeof item.output !== 'string' && !Array.isArray(item.output)) return item;
    return withMember(item, 'output', clearedStubText(toolName, str(item.call_id), outputText(item.output), recall));
  }),
  asChat: (item) => (kindOf(item) === 'reasoning' ? null : asChatMessage(item)),
};
