import { describe, expect, it } from 'vitest';
import { createTokenCounter } from '../tokens/counter.js';
import { CHAT_RECALL_TOOL, CHAT_RECALL_TOOL_JSON, RECALL_TOOL_MAX_TOKENS, RECALL_TOOL_NAME, RESPONSES_RECALL_TOOL_JSON } from './tool.js';

describe('the recap_recall tool', () => {
  it.each(['o200k_base', 'cl100k_base', 'estimate'] as const)('adds at most RECALL_TOOL_MAX_TOKENS to a prompt (%s)', (encoding) => {
    const counter = createTokenCounter({ encoding });
    for (const tools of [[], [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }]]) {
      const added = counter.countTools({ model: 'm', messages: [], tools: [...tools, CHAT_RECALL_TOOL] }) - counter.countTools({ model: 'm', messages: [], tools });
      expect(added).toBeGreaterThan(40);
      expect(added).toBeLessThanOrEqual(RECALL_TOOL_MAX_TOKENS);
    }
  });

  it('is a function tool taking a string query and an optional string id, in both wire shapes', () => {
    const chat = JSON.parse(CHAT_RECALL_TOOL_JSON);
    expect(chat.type).toBe('function');
    expect(chat.function.name).toBe(RECALL_TOOL_NAME);
    expect(chat.function.parameters.properties.query.type).toBe('string');
    expect(chat.function.parameters.properties.id.type).toBe('string');
    expect(chat.function.parameters.required).toEqual(['query']);
    const responses = JSON.parse(RESPONSES_RECALL_TOOL_JSON);
    expect(responses.name).toBe(RECALL_TOOL_NAME);
    expect(responses.parameters).toEqual(chat.function.parameters);
  });
});
