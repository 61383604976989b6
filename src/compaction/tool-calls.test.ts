import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../chat/types.js';
import { callsOf } from './tool-calls.js';

describe('callsOf', () => {
  it('lists tool calls, then a legacy function call', () => {
    const m: ChatMessage = {
      role: 'assistant',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      function_call: { name: 'g', arguments: '{}' },
    };
    expect(callsOf(m)).toEqual([
      { kind: 'tool_call', id: 'c1', name: 'f', arguments: '{"a":1}' },
      { kind: 'function_call', id: null, name: 'g', arguments: '{}' },
    ]);
  });

  it('returns nothing for a message without calls', () => {
    expect(callsOf({ role: 'assistant', content: 'hi', tool_calls: null })).toEqual([]);
  });

  it('survives malformed calls instead of throwing', () => {
    const m = { role: 'assistant', tool_calls: [null, 'x', { id: 5 }, { id: 'c', function: { name: 'f', arguments: { a: 1 } } }] };
    expect(callsOf(m as unknown as ChatMessage)).toEqual([
      { kind: 'tool_call', id: null, name: '?', arguments: '""' },
      { kind: 'tool_call', id: 'c', name: 'f', arguments: '{"a":1}' },
    ]);
    expect(callsOf({ role: 'assistant', tool_calls: {} as never })).toEqual([]);
  });
});
