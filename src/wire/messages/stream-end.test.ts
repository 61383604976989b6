import { describe, expect, it } from 'vitest';
import { judgeStreamEnd } from '../../http/stream-end.js';
import { messagesStreamEnd } from './stream-end.js';

const ev = (type: string, data: object = {}) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const judged = (...chunks: string[]) => {
  const judge = judgeStreamEnd(messagesStreamEnd);
  for (const c of chunks) judge.feed(Buffer.from(c));
  return judge.succeeded();
};

describe('the end of an Anthropic stream', () => {
  it('is whole at message_stop only', () => {
    const body = [ev('message_start', { message: {} }), ev('content_block_start', { index: 0 }), ev('content_block_stop', { index: 0 }), ev('message_delta', { delta: {} })];
    expect(judged(...body)).toBe(false);
    expect(judged(...body, ev('message_stop'))).toBe(true);
    // Read by the data's type when the server names no event.
    expect(judged(...body, 'data: {"type":"message_stop"}\n\n')).toBe(true);
  });

  it('failed at an error event, whatever follows', () => {
    expect(judged(ev('message_start', { message: {} }), ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }), ev('message_stop'))).toBe(false);
  });
});
