import { describe, expect, it } from 'vitest';
import { readResponsesSummarizerReply } from './responses.js';

// A Responses reply is a summary only when it completed with text (as reply.ts reads chat).

const response = (over: object) =>
  JSON.stringify({
    object: 'response',
    status: 'completed',
    output: [
      { type: 'reasoning', summary: [] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '## Goal\n- Ship it.' }] },
    ],
    usage: { input_tokens: 5000, input_tokens_details: { cached_tokens: 4096 }, output_tokens: 40 },
    ...over,
  });

describe('readResponsesSummarizerReply', () => {
  it('takes the message text and the usage, cached tokens included', () => {
    expect(readResponsesSummarizerReply(response({}))).toEqual({ ok: true, text: '## Goal\n- Ship it.', promptTokens: 5000, completionTokens: 40, cachedTokens: 4096 });
  });

  it('refuses an incomplete, refused, failed or empty response', () => {
    expect(readResponsesSummarizerReply(response({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }))).toMatchObject({ ok: false, reason: 'truncated' });
    expect(readResponsesSummarizerReply(response({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } }))).toMatchObject({ ok: false, reason: 'refused' });
    expect(readResponsesSummarizerReply(response({ output: [{ type: 'message', content: [{ type: 'refusal', refusal: 'no' }] }] }))).toMatchObject({
      ok: false,
      reason: 'refused',
    });
    expect(readResponsesSummarizerReply(response({ status: 'failed', error: { code: 'server_error' } }))).toMatchObject({ ok: false, reason: 'error' });
    expect(readResponsesSummarizerReply(response({ output: [] }))).toMatchObject({ ok: false, reason: 'empty' });
    expect(readResponsesSummarizerReply('not json')).toMatchObject({ ok: false, reason: 'error' });
  });
});
