import { describe, expect, it } from 'vitest';
import { chatRecall } from './recall.js';
import { chatStreamReading } from './recall-stream.js';

const reply = {
  id: 'c1',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: 'r1', type: 'function', function: { name: 'recap_recall', arguments: '{"query":"x"}' } },
          { id: 't1', type: 'function', function: { name: 'read_file', arguments: '{}' } },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
};

describe('chatRecall', () => {
  it('reads the recall calls of a reply, keeping only them in the continuation’s assistant message', () => {
    const calls = chatRecall.replyCalls(reply)!;
    expect(calls.calls).toEqual([{ id: 'r1', arguments: '{"query":"x"}' }]);
    expect(calls.dropped).toBe(1);
    expect(calls.assistant).toEqual([{ role: 'assistant', content: 'Let me look.', tool_calls: [reply.choices[0]!.message.tool_calls[0]] }]);
    expect(chatRecall.replyCalls({ choices: [{ message: { role: 'assistant', content: 'hi' } }] })).toBeNull();
  });

  it('writes the final reply with its usage replaced, or as a plain answer at the hop bound', () => {
    const raw = Buffer.from(JSON.stringify(reply));
    const usage = { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34 };
    expect(JSON.parse(chatRecall.finalReply(raw, reply, usage, false).toString())).toEqual({ ...reply, usage });
    const plain = JSON.parse(chatRecall.finalReply(raw, reply, usage, true).toString());
    expect(plain.choices[0]).toEqual({ index: 0, message: { role: 'assistant', content: 'Let me look.' }, finish_reason: 'stop' });
    expect(plain.usage).toEqual(usage);
  });

  it('puts a streamed reply’s calls together from their deltas', () => {
    const reading = chatStreamReading();
    const chunk = (delta: object) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta }] });
    reading.event(chunk({ role: 'assistant', content: 'A' }));
    expect(reading.callsTools()).toBe(false);
    reading.event(chunk({ tool_calls: [{ index: 0, id: 'r1', type: 'function', function: { name: 'recap_recall', arguments: '' } }] }));
    reading.event(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"query":' } }] }));
    reading.event(chunk({ tool_calls: [{ index: 0, function: { arguments: '"y"}' } }] }));
    expect(reading.ended()).toBe(false);
    reading.event('[DONE]');
    expect(reading.callsTools()).toBe(true);
    expect(reading.ended()).toBe(true);
    expect(reading.replyCalls()!.calls).toEqual([{ id: 'r1', arguments: '{"query":"y"}' }]);
  });
});
