import { describe, expect, it } from 'vitest';
import { createSseUsageSniffer, usageFromJson } from './usage.js';

const completion = { id: 'c1', object: 'chat.completion', choices: [], usage: { prompt_tokens: 1234, completion_tokens: 5, total_tokens: 1239 } };

function sse(events: unknown[]): string {
  return events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');
}

describe('usageFromJson', () => {
  it('reads prompt_tokens from a JSON completion given as text or bytes', () => {
    expect(usageFromJson(JSON.stringify(completion))).toBe(1234);
    expect(usageFromJson(new TextEncoder().encode(JSON.stringify(completion)))).toBe(1234);
  });

  it('returns undefined without usable usage', () => {
    expect(usageFromJson('{"choices":[]}')).toBeUndefined();
    expect(usageFromJson('{"usage":{"prompt_tokens":"12"}}')).toBeUndefined();
    expect(usageFromJson('{"usage":null}')).toBeUndefined();
    expect(usageFromJson('not json')).toBeUndefined();
  });
});

describe('createSseUsageSniffer', () => {
  const delta = (text: string) => ({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: text } }], usage: null });
  const usageChunk = { object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 987, completion_tokens: 3, total_tokens: 990 } };
  const stream = sse([delta('Hel'), delta('lo ✓'), usageChunk, '[DONE]']);

  it('reports the prompt_tokens of the usage chunk, fed in arbitrary byte splits', () => {
    const bytes = new TextEncoder().encode(stream);
    for (const size of [1, 3, 7, 64, bytes.length]) {
      const seen: number[] = [];
      const sniffer = createSseUsageSniffer((n) => seen.push(n));
      for (let i = 0; i < bytes.length; i += size) sniffer.feed(bytes.subarray(i, i + size));
      expect(sniffer.promptTokens).toBe(987);
      expect(seen).toEqual([987]);
    }
  });

  it('leaves the chunks it observes untouched', () => {
    const chunk = new TextEncoder().encode(stream);
    const copy = chunk.slice();
    createSseUsageSniffer().feed(chunk);
    expect(chunk).toEqual(copy);
  });

  it('reports nothing when the stream carries no usage', () => {
    const sniffer = createSseUsageSniffer();
    sniffer.feed(sse([delta('a'), delta('b'), '[DONE]']));
    expect(sniffer.promptTokens).toBeUndefined();
  });
});

describe('the Responses API', () => {
  it('reads usage.input_tokens from a response body', () => {
    expect(usageFromJson(JSON.stringify({ id: 'resp_1', object: 'response', output: [], usage: { input_tokens: 321, output_tokens: 4, total_tokens: 325 } }))).toBe(321);
  });

  it('reads it off the response.completed event of a typed stream, whatever the other events carry', () => {
    const frame = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const stream =
      frame('response.created', { response: { id: 'resp_1', usage: null } }) +
      frame('response.output_text.delta', { delta: 'usage' }) +
      frame('response.completed', { response: { id: 'resp_1', usage: { input_tokens: 654, output_tokens: 2, total_tokens: 656 } } });
    const sniffer = createSseUsageSniffer();
    sniffer.feed(stream);
    expect(sniffer.promptTokens).toBe(654);
  });
});
