import { describe, expect, it } from 'vitest';
import { CHAT_RECALL_TOOL_JSON, RECALL_TOOL_NAME, RESPONSES_RECALL_TOOL_JSON } from './tool.js';

describe('the recap_recall tool', () => {
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
