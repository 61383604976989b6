import { describe, expect, it } from 'vitest';
import { readJsonBody } from '../../body/json-body.js';
import { errors } from '../../errors.js';
import type { Pause } from '../../slicing/slicer.js';
import { STEP_EVERY } from '../../slicing/slicer.js';
import { parseChatRequest, readChatRequest } from './parse-request.js';

/** A pause that never waits and counts how often it was asked. */
function countingPause(): { pause: Pause; calls: () => number } {
  let calls = 0;
  return {
    pause: () => {
      calls++;
      return undefined;
    },
    calls: () => calls,
  };
}

function toolSteps(steps: number): Buffer {
  const messages: unknown[] = [{ role: 'user', content: 'do the task' }];
  for (let i = 0; i < steps; i++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read', arguments: '{}' } }] });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: `ok ${i}` });
  }
  return Buffer.from(JSON.stringify({ model: 'gpt-test', messages }));
}

describe('readChatRequest', () => {
  it('checks new messages in slices: the request path pauses between them as it does while parsing', async () => {
    // 10k tool steps of messages no request sent before: checking them held the event loop in one go.
    const raw = toolSteps(10_000);
    const parsing = countingPause();
    await readJsonBody(raw, parsing.pause);
    const reading = countingPause();
    const read = await readChatRequest(raw, reading.pause);
    expect(read.body.messages).toHaveLength(20_001);
    expect(reading.calls() - parsing.calls()).toBe(Math.ceil(20_001 / STEP_EVERY));
  });

  it('refuses a malformed message far down a long request, in slices as in one go', async () => {
    const body = JSON.parse(toolSteps(5_000).toString()) as { messages: unknown[] };
    body.messages[9_000] = { role: 'tool', content: 42 };
    const raw = Buffer.from(JSON.stringify(body));
    const expected = errors.invalidRequest('messages[9000].content must be a string, an array of content part objects, or null.', 'messages[9000].content');
    await expect(readChatRequest(raw, countingPause().pause)).rejects.toMatchObject({ code: expected.code, message: expected.message });
    expect(() => parseChatRequest(raw)).toThrow(expected.message);
  });
});
