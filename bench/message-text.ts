import type { ChatMessage } from '../src/messages/types.js';

/** What a chat message says, for looking identifiers up in: its text and its tool calls' arguments. */
export function messageText(m: ChatMessage): string {
  const content =
    typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => ('text' in p && typeof p.text === 'string' ? p.text : '')).join('\n') : '';
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => String(c.function?.arguments ?? '')) : [];
  return [content, ...calls].join('\n');
}
