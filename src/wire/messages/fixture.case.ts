import type { FormatFixture } from '../format.case.js';

// Anthropic's Messages API in the shared format suite (../format.case.ts): a Claude Code-like
// request (a system turn inside `messages`, thinking before a tool_use, results with a reminder).
export const messagesFixture: FormatFixture = {
  body: JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Fix INC-4411 in src/pay.ts' }] },
      { role: 'system', content: 'Agents available: general-purpose.' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Read the file first.', signature: 'c2ln' },
          { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'src/pay.ts' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const pay = 1;' },
          { type: 'text', text: '<system-reminder>ok</system-reminder>' },
        ],
      },
      { role: 'user', content: 'And now?' },
    ],
    tools: [{ name: 'Read', description: 'Read a file', input_schema: { type: 'object' } }],
  }).replace('"max_tokens":1024,', '"max_tokens":1024,"temperature":1.0e0,'),
  kinds: ['user', 'instruction', 'assistant', 'result', 'user'],
  invalid: { body: '{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":7}]}', param: 'messages.0.content' },
  stream: {
    events: [
      { event: 'message_start', data: '{"type":"message_start","message":{"id":"m","content":[]}}' },
      { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}' },
      { event: 'message_stop', data: '{"type":"message_stop"}' },
    ],
    failure: { event: 'error', data: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
  },
};
