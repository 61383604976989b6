// The fake upstream driven by the official OpenAI SDK: if the SDK accepts it, so will apps.
import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';

let fake: FakeUpstream;
let client: OpenAI;

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } },
};

beforeEach(async () => {
  fake ??= await startFakeUpstream();
  client ??= new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
  fake.reset();
  fake.setOptions({ chunkDelayMs: 0, promptTokens: undefined });
});
afterAll(() => fake.close());

describe('chat completions', () => {
  it('answers JSON with a deterministic echo of the last user message', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there, fake upstream' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-4o-mini');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', refusal: null });
    expect(completion.choices[0]?.message.content).toMatch(/^Echo: Hello there, fake upstream\. /);
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0));
    expect(fake.chatRequests()).toHaveLength(1);
    expect(fake.chatRequests()[0]?.json.messages[1].content).toBe('Hello there, fake upstream');
    expect(fake.chatRequests()[0]?.headers.authorization).toBe('Bearer test');
  });

  it('reports the prompt token count a test supplies', async () => {
    fake.setOptions({ promptTokens: () => 1234 });
    const completion = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.usage?.prompt_tokens).toBe(1234);
  });

  it('streams every scripted chunk as its own delta, then the usage chunk and [DONE]', async () => {
    fake.enqueue({ stream: { chunks: ['Once', ' upon', ' a time.'] } });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Tell a story' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const deltas = chunks.slice(1, 4).map((c) => c.choices[0]?.delta.content);
    expect(deltas).toEqual(['Once', ' upon', ' a time.']);
    expect(chunks[4]?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks[5]?.choices).toEqual([]);
    expect(chunks[5]?.usage?.completion_tokens).toBeGreaterThan(0);
    expect(chunks).toHaveLength(6);
    const sent = fake.sentBytes(fake.chatRequests()[0]!).toString();
    expect(sent.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(sent.split('\n\n').filter(Boolean)).toHaveLength(7);
  });

  it('streams the default reply in word groups and leaves usage out unless asked', async () => {
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }], stream: true });
    let text = '';
    let deltas = 0;
    for await (const chunk of stream) {
      expect(chunk.usage ?? undefined).toBeUndefined();
      const content = chunk.choices[0]?.delta.content;
      if (content) deltas += 1;
      text += content ?? '';
    }
    expect(text).toMatch(/^Echo: ping\. This is a deterministic reply/);
    expect(deltas).toBeGreaterThan(2);
  });

  it('paces chunks by chunkDelayMs', async () => {
    fake.setOptions({ chunkDelayMs: 40 });
    fake.enqueue({ stream: { chunks: ['a', 'b', 'c'] } });
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true });
    const arrivals: number[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) arrivals.push(Date.now());
    expect(arrivals).toHaveLength(3);
    expect(arrivals[2]! - arrivals[0]!).toBeGreaterThanOrEqual(60);
  });
});

describe('tool calls', () => {
  it('returns scripted tool calls in a JSON completion', async () => {
    fake.enqueue({ toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const completion = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'weather?' }], tools: [weather] });
    const message = completion.choices[0]?.message;
    expect(message?.content).toBeNull();
    expect(message?.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('streams a default tool call that the SDK assembles', async () => {
    const runner = client.chat.completions.stream({
      model: 'm',
      messages: [{ role: 'user', content: 'Please use the tool for Oslo' }],
      tools: [weather],
    });
    const completion = await runner.finalChatCompletion();
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'example', days: 1 });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
  });
});

describe('other routes and errors', () => {
  it('lists models', async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toContain('gpt-4o-mini');
  });

  it('echoes any other path so passthrough tests can see what arrived', async () => {
    const res = await fetch(`${fake.url}/files?purpose=batch`, { method: 'POST', body: 'raw bytes' });
    expect(await res.json()).toEqual({ object: 'echo', method: 'POST', path: '/v1/files?purpose=batch', body: 'raw bytes' });
    expect(fake.chatRequests()).toHaveLength(0);
    expect(fake.requests).toHaveLength(1);
  });

  it('surfaces a scripted 429 with retry-after as a RateLimitError', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '7', 'x-should-retry': 'false' } });
    const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.headers.get('retry-after')).toBe('7');
    expect(rateLimit.code).toBe('rate_limit_exceeded');
  });

  it('sends a scripted raw body verbatim', async () => {
    fake.enqueue({ status: 502, body: '<html>bad gateway</html>', headers: { 'content-type': 'text/html' } }, { path: '/v1/models' });
    const res = await fetch(`${fake.url}/models`);
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toBe('<html>bad gateway</html>');
  });

  it('floods exactly the scripted number of bytes as SSE comments, keeping no copy', async () => {
    fake.enqueue({ flood: 200_000 });
    const res = await fetch(`${fake.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [], stream: true }) });
    const text = await res.text();
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(text).toHaveLength(200_000);
    expect(text.startsWith(': xxx')).toBe(true);
    expect(fake.chatRequests()[0]!.floodedBytes).toBe(200_000);
    expect(fake.sentBytes(fake.chatRequests()[0]!)).toHaveLength(0);
  });

  it('answers a JSON body that is not an object with a 400, not a hung request', async () => {
    for (const body of ['null', '[]', '"text"']) {
      const res = await fetch(`${fake.url}/chat/completions`, { method: 'POST', body, signal: AbortSignal.timeout(2_000) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    }
  });

  it('lets a default script answer every request', async () => {
    fake.setDefault((req) => ({ content: `seen ${req.json?.messages?.length} messages` }));
    const completion = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.choices[0]?.message.content).toBe('seen 1 messages');
  });
});
