import { describe, expect, it } from 'vitest';
import { readAnthropicSummarizerReply } from './anthropic.js';

// The Anthropic summarizer's reply, read as strictly as a chat completion's (reply.ts).
describe('readAnthropicSummarizerReply', () => {
  it('takes the text of a message that ended on its own, with its usage', () => {
    const body = JSON.stringify({ type: 'message', content: [{ type: 'text', text: ' ## Goal\nship ' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 4 } });
    expect(readAnthropicSummarizerReply(body)).toMatchObject({ ok: true, text: '## Goal\nship', completionTokens: 4 });
  });

  it.each([
    ['not JSON', 'upstream exploded', 'error', 'not JSON'],
    ['not an object', '"a string"', 'error', 'not an object'],
    ['an error object', JSON.stringify({ type: 'error', error: { type: 'overloaded_error' } }), 'error', 'answered an error'],
    ['a refusal', JSON.stringify({ type: 'message', content: [], stop_reason: 'refusal' }), 'refused', 'refused'],
    ['cut off at its limit', JSON.stringify({ type: 'message', content: [{ type: 'text', text: 'half' }], stop_reason: 'max_tokens' }), 'truncated', 'cut off'],
    ['no text', JSON.stringify({ type: 'message', content: [{ type: 'thinking', thinking: 'hmm' }], stop_reason: 'end_turn' }), 'empty', 'no text'],
  ])('is no summary when the reply is %s', (_what, body, reason, detail) => {
    const read = readAnthropicSummarizerReply(body);
    expect(read).toMatchObject({ ok: false, reason });
    expect(read.ok ? '' : read.detail).toContain(detail);
  });
});
