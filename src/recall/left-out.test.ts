import { describe, expect, it } from 'vitest';
import { describeChatMessage } from '../wire/chat/items.js';
import type { ChatMessage } from '../messages/types.js';
import { leftOutPassages } from './left-out.js';

const rest: ChatMessage[] = [
  { role: 'user', content: 'Fix the parser in src/parse.ts' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/parse.ts"}' } }] },
  { role: 'tool', tool_call_id: 'call_a', content: 'export function parse() { /* MARKER-7 */ }' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'grep', arguments: '{"q":"x"}' } }] },
  { role: 'tool', tool_call_id: 'call_b', content: 'src/a.ts:1: x' },
  { role: 'user', content: 'thanks' },
];
const input = { rest, offset: 1, describe: describeChatMessage, asChat: (m: ChatMessage) => m };

describe('leftOutPassages', () => {
  it('gives the summarized items (not those kept verbatim) and the cleared results, with stable handles', () => {
    const passages = leftOutPassages(input, { covered: 3, kept: [0], cleared: new Set([4]) });
    expect(passages).toEqual([
      { handle: 'item-2', label: 'assistant message (summarized)', text: 'read_file({"path":"src/parse.ts"})', index: 2 },
      { handle: 'call_a', label: 'tool read_file result (summarized)', text: 'export function parse() { /* MARKER-7 */ }', index: 3 },
      { handle: 'call_b', label: 'tool grep result (cleared)', text: 'src/a.ts:1: x', index: 5 },
    ]);
  });

  it('is empty when the view leaves nothing out', () => {
    expect(leftOutPassages(input, { covered: 0, kept: [], cleared: new Set() })).toEqual([]);
  });
});
