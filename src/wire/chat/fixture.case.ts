import type { FormatFixture } from '../format.case.js';

// The chat completions API in the shared format suite (../format.case.ts).
export const chatFixture: FormatFixture = {
  body: JSON.stringify({
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'You are an ops agent.' },
      { role: 'user', content: 'Investigate INC-4411.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_log', arguments: '{"part":1}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'deploy 41 failed at step 3' },
      { role: 'user', content: 'And now?' },
    ],
    tools: [{ type: 'function', function: { name: 'read_log', parameters: { type: 'object' } } }],
  }).replace('"model":"gpt-4o",', '"model":"gpt-4o","seed":1.0e0,"temperature":0.50,'),
  kinds: ['instruction', 'user', 'assistant', 'result', 'user'],
  invalid: { body: '{"model":"gpt-4o","messages":[{"role":"user","content":42}]}', param: 'messages[0].content' },
  stream: {
    events: [{ data: '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}' }, { data: '[DONE]' }],
    failure: { data: '{"error":{"message":"overloaded","type":"server_error"}}' },
  },
};
