import { arrayElements, objectMembers, type Span } from '../../body/scan.js';
import { replaceDocumentMembers } from '../../body/splice.js';
import { stringifyJson } from '../../body/stringify.js';
import { readAnthropicSummarizerReply } from '../../summarizer/anthropic.js';
import { cutItems } from '../cut-items.js';
import type { SharedPrefixCall, SharedPrefixWire } from '../format.js';
import { countBreakpoints, MAX_BREAKPOINTS } from './breakpoints.js';

// The Anthropic summarizer call on the conversation's cached prefix (as chat/shared-prefix.ts): the
// body recap forwarded, its `messages` cut after the span as forwarded, one user message with the
// instruction appended (a trailing assistant message would be a prefill to continue; after a user
// message the API joins the two into one turn). `system`, `tools`, `thinking`, `tool_choice` and
// every other member stay as sent: Anthropic keys its cache on them, and a changed `tool_choice`
// or `thinking` loses the cached messages. Anthropic reads its cache only at a `cache_control`
// breakpoint (or up to 20 blocks before one), so the last message kept gets one on its last block,
// when the client caches at all and its count of breakpoints (and Anthropic's 4) leaves room.
// What changes besides: `max_tokens` is the summary's (plus the thinking budget, which it must
// exceed), `stream` (when given) is false, and a `tool_choice` that forces a tool call is "none".

const BREAKPOINT = ',"cache_control":{"type":"ephemeral"}';

interface Block {
  type?: unknown;
  cache_control?: unknown;
}

interface Message {
  content?: unknown;
}

function messageBreakpoints(messages: readonly Message[]): number {
  return messages.reduce((n, m) => n + countBreakpoints(m?.content), 0);
}

/** The message at `span` with a breakpoint on its last block (a string content becomes one text block), or null when that block cannot take one. */
function withBreakpoint(raw: Buffer, span: Span, message: Message): Buffer | null {
  const content = objectMembers(raw, span.start).items.find((m) => m.key === 'content');
  if (!content) return null;
  if (typeof message.content === 'string') {
    const text = raw.subarray(content.value.start, content.value.end);
    return Buffer.concat([
      raw.subarray(span.start, content.value.start),
      Buffer.from('[{"type":"text","text":'),
      text,
      Buffer.from(`${BREAKPOINT}}]`),
      raw.subarray(content.value.end, span.end),
    ]);
  }
  const blocks = Array.isArray(message.content) ? (message.content as Block[]) : [];
  const last = blocks.at(-1);
  // Thinking blocks take no breakpoint; one already there needs none.
  if (!last || last.type === 'thinking' || last.type === 'redacted_thinking' || last.cache_control != null) return null;
  const lastSpan = arrayElements(raw, content.value.start).items.at(-1)!;
  return Buffer.concat([raw.subarray(span.start, lastSpan.end - 1), Buffer.from(BREAKPOINT), raw.subarray(lastSpan.end - 1, span.end)]);
}

export function messagesSharedPrefixBody(forwarded: Buffer, call: SharedPrefixCall): Buffer {
  const instruction = stringifyJson({ role: 'user', content: [{ type: 'text', text: call.instruction }] });
  const { bytes, value, kept } = cutItems(forwarded, 'messages', call.keep, instruction);
  const messages = (Array.isArray(value.messages) ? value.messages : []) as Message[];
  const outside = countBreakpoints(value.tools) + countBreakpoints(value.system);
  const sent = outside + messageBreakpoints(messages);
  const left = outside + messageBreakpoints(messages.slice(0, call.keep));
  let cut = bytes;
  if (sent > 0 && left < Math.min(sent, MAX_BREAKPOINTS)) {
    const span = kept.at(-1)!;
    const marked = withBreakpoint(bytes, span, messages[call.keep - 1]!);
    if (marked) cut = Buffer.concat([bytes.subarray(0, span.start), marked, bytes.subarray(span.end)]);
  }
  const thinking = value.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  const budget = thinking?.type === 'enabled' && typeof thinking.budget_tokens === 'number' ? thinking.budget_tokens : 0;
  const changes = new Map<string, unknown>([['max_tokens', budget + call.maxTokens]]);
  if ('stream' in value) changes.set('stream', false);
  const choice = (value.tool_choice as { type?: unknown } | undefined)?.type;
  if (choice === 'any' || choice === 'tool') changes.set('tool_choice', { type: 'none' });
  return replaceDocumentMembers(cut, changes);
}

export const messagesSharedPrefix: SharedPrefixWire = { body: messagesSharedPrefixBody, readReply: readAnthropicSummarizerReply };
