import { describe, expect, it } from 'vitest';
import { createSseUsageSniffer, usageFromJson, usageReportFromJson } from './usage.js';

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

describe('what the provider cached', () => {
  const frame = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

  it('chat completions: prompt_tokens_details.cached_tokens, JSON and stream', () => {
    const usage = { prompt_tokens: 5000, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 4096 } };
    expect(usageReportFromJson(JSON.stringify({ object: 'chat.completion', choices: [], usage }))).toEqual({ promptTokens: 5000, cachedTokens: 4096, outputTokens: 40 });
    const sniffer = createSseUsageSniffer();
    sniffer.feed(
      sse([{ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'a' } }], usage: null }, { object: 'chat.completion.chunk', choices: [], usage }, '[DONE]']),
    );
    expect(sniffer.report).toEqual({ promptTokens: 5000, cachedTokens: 4096, outputTokens: 40 });
  });

  it('chat completions without details: no cached field, not a zero', () => {
    expect(usageReportFromJson(JSON.stringify(completion))).toEqual({ promptTokens: 1234, outputTokens: 5 });
  });

  it('Responses: input_tokens_details.cached_tokens, JSON and the response.completed event', () => {
    const usage = { input_tokens: 3000, output_tokens: 7, input_tokens_details: { cached_tokens: 2944 } };
    expect(usageReportFromJson(JSON.stringify({ object: 'response', output: [], usage }))).toEqual({ promptTokens: 3000, cachedTokens: 2944, outputTokens: 7 });
    const sniffer = createSseUsageSniffer();
    sniffer.feed(frame('response.created', { response: { usage: null } }) + frame('response.completed', { response: { usage } }));
    expect(sniffer.report).toEqual({ promptTokens: 3000, cachedTokens: 2944, outputTokens: 7 });
  });

  it('Anthropic Messages: input_tokens is the uncached part; reads and writes are the rest of the prompt', () => {
    const usage = { input_tokens: 12, cache_read_input_tokens: 9000, cache_creation_input_tokens: 800, output_tokens: 55 };
    const expected = { promptTokens: 9812, cachedTokens: 9000, cacheWriteTokens: 800, outputTokens: 55 };
    expect(usageReportFromJson(JSON.stringify({ type: 'message', content: [], usage }))).toEqual(expected);
  });

  it('Anthropic stream: message_start carries the prompt, message_delta the output', () => {
    const start = { message: { id: 'msg_1', usage: { input_tokens: 12, cache_read_input_tokens: 9000, cache_creation_input_tokens: 800, output_tokens: 1 } } };
    const bytes = new TextEncoder().encode(
      frame('message_start', start) +
        frame('content_block_delta', { delta: { text: 'hi' } }) +
        frame('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 55 } }),
    );
    for (const size of [5, bytes.length]) {
      const seen: number[] = [];
      const sniffer = createSseUsageSniffer((n) => seen.push(n));
      for (let i = 0; i < bytes.length; i += size) sniffer.feed(bytes.subarray(i, i + size));
      expect(sniffer.report).toEqual({ promptTokens: 9812, cachedTokens: 9000, cacheWriteTokens: 800, outputTokens: 55 });
      expect(seen).toEqual([9812]);
    }
  });

  it('a stream whose only usage has no prompt reports none', () => {
    const sniffer = createSseUsageSniffer();
    sniffer.feed(frame('message_delta', { usage: { output_tokens: 5 } }));
    expect(sniffer.report).toBeUndefined();
    expect(sniffer.promptTokens).toBeUndefined();
  });
});
