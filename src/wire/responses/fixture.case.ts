import type { FormatFixture } from '../format.case.js';

// The Responses API in the shared format suite (../format.case.ts).
export const responsesFixture: FormatFixture = {
  body: JSON.stringify({
    model: 'gpt-4o',
    instructions: 'You are an ops agent.',
    input: [
      { role: 'developer', content: 'Answer in English.' },
      { role: 'user', content: 'Investigate INC-4411.' },
      { type: 'function_call', call_id: 'call_1', name: 'read_log', arguments: '{"part":1}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'deploy 41 failed at step 3' },
      { role: 'user', content: 'And now?' },
    ],
    tools: [{ type: 'function', name: 'read_log', parameters: { type: 'object' } }],
  }).replace('"model":"gpt-4o",', '"model":"gpt-4o","max_output_tokens":2.0e3,"store":false,'),
  kinds: ['instruction', 'user', 'assistant', 'result', 'user'],
  invalid: { body: '{"model":"gpt-4o","input":[null]}', param: 'input[0]' },
  stream: {
    events: [
      { event: 'response.output_text.delta', data: '{"type":"response.output_text.delta","delta":"hi"}' },
      { event: 'response.completed', data: '{"type":"response.completed","response":{"id":"r","status":"completed"}}' },
    ],
    failure: { event: 'response.failed', data: '{"type":"response.failed","response":{"id":"r","status":"failed"}}' },
  },
};
