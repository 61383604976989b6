import { describe, expect, it } from 'vitest';
import { chatStreamEnd } from '../wire/chat/stream-end.js';
import { carriesError, judgeStreamEnd } from './stream-end.js';

const judged = (chunks: string[]) => {
  const judge = judgeStreamEnd(chatStreamEnd);
  for (const c of chunks) judge.feed(Buffer.from(c));
  return judge.succeeded();
};

describe('judgeStreamEnd', () => {
  it('lets the first telling event decide, as the SDKs stop reading at it', () => {
    expect(judged(['data: {"choices":[]}\n\n', 'data: [DONE]\n\n'])).toBe(true);
    expect(judged(['data: [DONE]\n\n', 'data: {"error":{"message":"late"}}\n\n'])).toBe(true);
    expect(judged(['data: {"error":{"message":"x"}}\n\n', 'data: [DONE]\n\n'])).toBe(false);
    expect(judged(['data: {"choices":[]}\n\n'])).toBe(false);
  });

  it('reads events split anywhere across chunks, multi-byte characters included', () => {
    const text = Buffer.from('data: {"choices":[{"delta":{"content":"é"}}]}\n\ndata: [DO');
    const judge = judgeStreamEnd(chatStreamEnd);
    for (let i = 0; i < text.length; i++) judge.feed(text.subarray(i, i + 1));
    expect(judge.succeeded()).toBe(false);
    judge.feed(Buffer.from('NE]\r\n\r\n'));
    expect(judge.succeeded()).toBe(true);
  });

  it('does not count an event the stream cut off before its blank line', () => {
    expect(judged(['data: {"choices":[]}\n\n', 'data: [DONE]'])).toBe(false);
  });
});

describe('carriesError', () => {
  it('is a truthy top-level `error`, however its key is spelled', () => {
    expect(carriesError('{"error":{"message":"x"}}')).toBe(true);
    expect(carriesError('{"\\u0065rror":"x"}')).toBe(true);
    expect(carriesError('{"error":null,"choices":[]}')).toBe(false);
    expect(carriesError('{"choices":[{"delta":{"content":"\\"error\\": \\u00e9"}}]}')).toBe(false);
    expect(carriesError('not json "error"')).toBe(false);
  });
});
