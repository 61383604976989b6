import { lastPerItem, oncePerItem } from '../../body/once-per-item.js';
import { withMember } from '../../body/splice.js';
import { stringifyJson } from '../../body/stringify.js';
import { clearedStubText } from '../../compaction/clearing.js';
import type { NeutralCall, NeutralItem } from '../../compaction/items.js';
import { SUMMARY_MARKER } from '../../compaction/summary-message.js';
import type { ChatMessage, ContentPart, ToolCall } from '../../messages/types.js';
import type { WireItems } from '../format.js';
import type { AnthropicMessage, ContentBlock } from './types.js';

// Anthropic messages as the engine sees them (compaction/items.ts). The top-level `system` is
// pinned outside the items (it never changes). In `messages`:
// - an `assistant` message is a step's output; its `tool_use` blocks are the step's calls. Its
//   `thinking`/`redacted_thinking` blocks (with their signatures), `server_tool_use` and
//   `web_search_tool_result` blocks and any block type recap does not know are part of it: kept
//   or dropped with the message, byte for byte, never edited;
// - a `user` message holding `tool_result` blocks is the results of the previous assistant turn's
//   calls: it belongs to that step, never opens a round, even when it also carries text (Claude
//   Code appends <system-reminder> text to results): cutting there would separate a tool_use from
//   its tool_result, which Anthropic refuses;
// - any other `user` message (text, images, documents) opens a round;
// - a `system` turn inside `messages` (Claude Code sends one right after the first user message)
//   is an instruction, kept verbatim as later instructions are (rule 2).
// recap's summary is a `user` message whose one text block is the sealed summary (the first item
// of a view): Anthropic takes no `system` turn before the first user message, and the top-level
// `system` is the client's cached prefix, which stays as sent.

const isBlock = (v: unknown): v is ContentBlock => v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { type?: unknown }).type === 'string';
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function blocksOf(m: AnthropicMessage): ContentBlock[] {
  return Array.isArray(m.content) ? m.content.filter(isBlock) : [];
}

function callsOf(m: AnthropicMessage): NeutralCall[] {
  const calls: NeutralCall[] = [];
  for (const b of blocksOf(m)) if (b.type === 'tool_use' && typeof b.id === 'string') calls.push({ id: b.id, name: str(b.name) ?? '?' });
  return calls;
}

const resultsOf = (m: AnthropicMessage): ContentBlock[] => blocksOf(m).filter((b) => b.type === 'tool_result');

/** The one text of a message: its string content, or the text of its only text block. */
function soleText(m: AnthropicMessage): string | null {
  if (typeof m.content === 'string') return m.content;
  const blocks = blocksOf(m);
  return blocks.length === 1 && blocks[0]!.type === 'text' ? str(blocks[0]!.text) : null;
}

export function describeAnthropicMessage(m: AnthropicMessage): NeutralItem {
  switch (m.role) {
    case 'system':
      return { kind: 'instruction', calls: [], resultOf: null };
    case 'assistant':
      return { kind: 'assistant', calls: callsOf(m), resultOf: null };
    case 'user': {
      const results = resultsOf(m);
      if (results.length > 0) return { kind: 'result', calls: [], resultOf: str(results[0]!.tool_use_id) };
      // recap's own summary, should a client send a view back: pinned, never a round of its own.
      if (soleText(m)?.startsWith(SUMMARY_MARKER)) return { kind: 'instruction', calls: [], resultOf: null };
      return { kind: 'user', calls: [], resultOf: null };
    }
    default:
      return { kind: 'other', calls: [], resultOf: null };
  }
}

/** A message with every tool_result's content replaced by the stub of rule 11; its other blocks (text, cache_control) as sent. */
export function clearedResults(m: AnthropicMessage, toolName: string | null, recall: boolean): AnthropicMessage {
  if (!Array.isArray(m.content)) return m;
  const results = resultsOf(m).length;
  const content = m.content.map((b) => {
    if (!isBlock(b) || b.type !== 'tool_result') return b;
    return { ...b, content: clearedStubText(results === 1 ? toolName : null, str(b.tool_use_id), resultText(b.content), recall) };
  });
  return withMember(m, 'content', content);
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isBlock)
    .map((b) => (b.type === 'text' ? (str(b.text) ?? '') : `[${b.type}]`))
    .join('\n');
}

/** Content blocks as chat content parts: text as text, media by type (counted apart: count.ts). */
function chatParts(blocks: readonly ContentBlock[]): ContentPart[] {
  return blocks.map((b): ContentPart => (b.type === 'text' ? { type: 'text', text: str(b.text) ?? '' } : { type: b.type }));
}

/**
 * A message as a chat message of the same meaning, for the summarizer's transcript, the template,
 * the ledger and recall's search. Thinking is never shown to them: its text stays with its turn.
 * `tool_use` blocks are tool calls; a results message is a tool message (all its results, and the
 * text it carries, in order).
 */
export function asChatMessage(m: AnthropicMessage): ChatMessage | null {
  if (typeof m.content === 'string') return { role: m.role, content: m.content };
  const blocks = blocksOf(m);
  if (m.role === 'assistant') {
    const calls: ToolCall[] = blocks
      .filter((b) => b.type === 'tool_use' || b.type === 'server_tool_use')
      .map((b) => ({ id: str(b.id) ?? '', type: 'function', function: { name: str(b.name) ?? b.type, arguments: stringifyJson(b.input ?? {}) } }));
    const shown = blocks.filter((b) => b.type === 'text');
    if (calls.length === 0 && shown.length === 0) return null;
    return { role: 'assistant', content: shown.length > 0 ? chatParts(shown) : null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
  }
  const results = resultsOf(m);
  if (m.role === 'user' && results.length > 0) {
    const text = blocks.map((b) => (b.type === 'tool_result' ? resultText(b.content) : b.type === 'text' ? (str(b.text) ?? '') : `[${b.type}]`)).join('\n');
    return { role: 'tool', tool_call_id: str(results[0]!.tool_use_id) ?? '', content: text };
  }
  return { role: m.role, content: chatParts(blocks) };
}

/** The Messages route's items for the engine (wire/format.ts). */
export const messagesWire: WireItems<AnthropicMessage> = {
  route: 'messages',
  describe: oncePerItem(describeAnthropicMessage),
  summaryItem: (sealed) => ({ role: 'user', content: [{ type: 'text', text: sealed }] }),
  sealedTextOf: (m) => (m.role === 'user' ? soleText(m) : null),
  cleared: lastPerItem(clearedResults),
  asChat: asChatMessage,
};
