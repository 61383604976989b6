import { describe, expect, it } from 'vitest';
import { messageShapeProblem } from './message-shape.js';

describe('messageShapeProblem', () => {
  it('accepts every shape recap can walk, whatever the role, part type or extra fields', () => {
    for (const m of [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'some_future_part' }, {}] },
      { role: 'tool' },
      { role: 'critic', tool_calls: null, function_call: 'odd', name: 5 },
      { role: 'assistant', tool_calls: [] },
    ]) {
      expect(messageShapeProblem(m), JSON.stringify(m)).toBeNull();
    }
  });

  it('names content or tool_calls of a shape recap cannot walk', () => {
    expect(messageShapeProblem({ role: 'user', content: 42 })?.field).toBe('content');
    expect(messageShapeProblem({ role: 'user', content: { text: 'a' } })?.field).toBe('content');
    expect(messageShapeProblem({ role: 'user', content: [null] })?.field).toBe('content');
    expect(messageShapeProblem({ role: 'user', content: [['text']] })?.field).toBe('content');
    expect(messageShapeProblem({ role: 'assistant', tool_calls: {} })?.field).toBe('tool_calls');
    expect(messageShapeProblem({ role: 'assistant', tool_calls: ['call'] })?.field).toBe('tool_calls');
  });
});
