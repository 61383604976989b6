import { describe, expect, it } from 'vitest';
import { responsesSharedPrefixBody } from './shared-prefix.js';

describe('responsesSharedPrefixBody', () => {
  it('is the forwarded body up to the span end as sent, then the instruction; stream, the limit, tool_choice and store change', () => {
    const forwarded = Buffer.from(
      '{"model":"gpt-4.1","instructions":"Be brief.","stream":true,"seed":1e400,"tools":[{"type":"function","name":"read"}],' +
        '"input":[{"role":"user","content":"task"},  {"type":"function_call","call_id":"c1","name":"read","arguments":"{}"},' +
        '{"type":"function_call_output","call_id":"c1","output":"x"},{"role":"user","content":"next"}],"max_output_tokens":9000}',
    );
    const built = responsesSharedPrefixBody({ forwarded, keep: 3, instruction: 'Summarize.', maxTokens: 700 }).toString();
    expect(built).toBe(
      '{"store":false,"tool_choice":"none","model":"gpt-4.1","instructions":"Be brief.","stream":false,"seed":1e400,"tools":[{"type":"function","name":"read"}],' +
        '"input":[{"role":"user","content":"task"},  {"type":"function_call","call_id":"c1","name":"read","arguments":"{}"},' +
        '{"type":"function_call_output","call_id":"c1","output":"x"},{"role":"user","content":"Summarize."}],"max_output_tokens":700}',
    );
  });
});
