import { describe, expect, it } from 'vitest';
import { readSummarizerReply } from './reply.js';

const completion = (message: object, finish_reason = 'stop', extra: object = {}) =>
  JSON.stringify({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason }], ...extra });

describe('readSummarizerReply', () => {
  it('takes the trimmed text and usage of a completion that stopped on its own', () => {
    expect(readSummarizerReply(completion({ content: ' ## Goal\nShip it \n' }, 'stop', { usage: { prompt_tokens: 900, completion_tokens: 40 } }))).toEqual({
      ok: true,
      text: '## Goal\nShip it',
      promptTokens: 900,
      completionTokens: 40,
    });
  });

  it.each([
    ['a body that is not JSON', 'upstream overloaded, try later', 'error'],
    ['JSON that is not an object', '"ok"', 'error'],
    ['a 200 carrying an error object', JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }), 'error'],
    ['a refusal', completion({ content: null, refusal: "I can't help with that." }), 'refused'],
    ['a filtered reply', completion({ content: '## Goal\npartial' }, 'content_filter'), 'refused'],
    ['a reply cut off at max_tokens', completion({ content: '## Goal\nShip it and then the' }, 'length'), 'truncated'],
    ['an empty content', completion({ content: '  ' }), 'empty'],
    ['no choices', JSON.stringify({ object: 'chat.completion', choices: [] }), 'empty'],
  ])('rejects %s', (_name, body, reason) => {
    expect(readSummarizerReply(body)).toMatchObject({ ok: false, reason });
  });

  it('reads an error nested thousands of levels deep as an error', () => {
    const reply = readSummarizerReply(`{"error":${'{"a":['.repeat(20_000)}1${']}'.repeat(20_000)}}`);
    expect(reply).toMatchObject({ ok: false, reason: 'error' });
  });
});
