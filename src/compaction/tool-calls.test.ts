import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { headChars, tailChars } from './text.js';
import { boundedCallArguments, callsOf } from './tool-calls.js';

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

describe('boundedCallArguments', () => {
  const all = (m: ChatMessage) => callsOf(m).map((c) => c.arguments);

  it("is every call's arguments for a message that fits", () => {
    const m = { role: 'assistant', tool_calls: [null, { id: 'a', function: { name: 'f', arguments: '{"x":1}' } }], function_call: { name: 'g', arguments: { y: 2 } } };
    expect(boundedCallArguments(m as unknown as ChatMessage, 100, 100)).toEqual(all(m as unknown as ChatMessage));
  });

  it('has the same first and last calls as the whole message for 20k parallel calls', () => {
    const m: ChatMessage = {
      role: 'assistant',
      tool_calls: Array.from({ length: 20_000 }, (_, i) => ({ id: `c${i}`, type: 'function' as const, function: { name: 'f', arguments: `{"order":"ORD-${i}"}` } })),
    };
    const whole = all(m).join('\n');
    const bounded = boundedCallArguments(m, 1000, 500).join('\n');
    expect(bounded.length).toBeLessThan(whole.length / 100);
    expect(headChars(bounded, 1000)).toBe(headChars(whole, 1000));
    expect(tailChars(bounded, 500)).toBe(tailChars(whole, 500));
  });
});
