import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { type Harness, startHarness } from './helpers/harness.js';

// Issue 2's acceptance: the SDK cannot tell recap from the upstream, byte for byte.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

async function rawPost(base: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('transparent forwarding', () => {
  it('returns the same non-streaming completion as the upstream, byte for byte', async () => {
    const body = { model: 'gpt-test-1', messages: [{ role: 'user', content: 'hello there' }], temperature: 0.2, some_unknown_field: { a: 1 } };
    const res = await rawPost(h.recap.url, body);
    const upstreamReq = h.fake.chatRequests().at(-1)!;
    expect(res.status).toBe(200);
    expect(res.bytes.equals(h.fake.sentBytes(upstreamReq))).toBe(true);
    // Unknown fields reach the upstream exactly as sent: the original bytes are forwarded.
    expect(upstreamReq.body).toBe(JSON.stringify(body));
    expect(res.headers.get('x-recap-action')).toBe('none');
    expect(Number(res.headers.get('x-recap-tokens-in'))).toBeGreaterThan(0);
    expect(upstreamReq.headers.authorization).toBe('Bearer sk-x');
  });

  it('streams every SSE chunk in order with identical bytes, through the SDK', async () => {
    const client = h.client();
    const stream = await client.chat.completions.create({
      model: 'gpt-test-1',
      messages: [{ role: 'user', content: 'tell me a story about streams' }],
      stream: true,
    });
    const viaRecap: string[] = [];
    for await (const chunk of stream) viaRecap.push(chunk.choices[0]?.delta?.content ?? '');
    const upstreamReq = h.fake.chatRequests().at(-1)!;

    const direct = new OpenAI({ baseURL: h.fake.url, apiKey: 'k', maxRetries: 0 });
    const directStream = await direct.chat.completions.create({
      model: 'gpt-test-1',
      messages: [{ role: 'user', content: 'tell me a story about streams' }],
      stream: true,
    });
    const viaDirect: string[] = [];
    for await (const chunk of directStream) viaDirect.push(chunk.choices[0]?.delta?.content ?? '');
    expect(viaRecap).toEqual(viaDirect);
    expect(viaRecap.length).toBeGreaterThan(2);

    const raw = await rawPost(h.recap.url, { model: 'gpt-test-1', messages: [{ role: 'user', content: 'bytes please' }], stream: true });
    const sent = h.fake.sentBytes(h.fake.chatRequests().at(-1)!);
    expect(raw.bytes.equals(sent)).toBe(true);
    expect(raw.bytes.toString()).toContain('data: [DONE]');
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    expect(upstreamReq.json.stream).toBe(true);
  });

  it('passes tool calls through, streaming and not', async () => {
    const client = h.client();
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    h.fake.enqueue({ toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] });
    const res = await client.chat.completions.create({ model: 'gpt-test-1', messages: [{ role: 'user', content: 'weather?' }], tools });
    expect(res.choices[0]!.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });

    h.fake.enqueue({ toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const stream = await client.chat.completions.create({ model: 'gpt-test-1', messages: [{ role: 'user', content: 'weather?' }], tools, stream: true });
    let args = '';
    for await (const chunk of stream) args += chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '';
    expect(args).toBe('{"city":"Oslo"}');
  });

  it('forwards models.list and other /v1 routes untouched to the default upstream', async () => {
    const client = h.client();
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('gpt-4o');
    // Hop-by-hop and Connection-nominated headers: test/hostile/hop-headers.test.ts.
    const res = await fetch(`${h.recap.url}/v1/embeddings?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-e' },
      body: JSON.stringify({ model: 'text-embedding-3-small', input: 'hi' }),
    });
    const echo = (await res.json()) as { path: string; body: string };
    expect(echo.path).toBe('/v1/embeddings?x=1');
    expect(JSON.parse(echo.body)).toEqual({ model: 'text-embedding-3-small', input: 'hi' });
    expect(h.fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-e');
  });

  it('sends a model with no config to the default upstream as is', async () => {
    const body = { model: 'some-unknown-model', messages: [{ role: 'user', content: 'x' }] };
    const res = await rawPost(h.recap.url, body);
    expect(res.status).toBe(200);
    expect(h.fake.chatRequests().at(-1)!.body).toBe(JSON.stringify(body));
  });
});

describe('errors', () => {
  it('answers 502 in OpenAI shape when the upstream cannot be reached', async () => {
    const down = await startHarness();
    await down.fake.close();
    const res = await rawPost(down.recap.url, { model: 'gpt-test-1', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(502);
    expect(JSON.parse(res.bytes.toString())).toMatchObject({ error: { code: 'upstream_unreachable', type: 'api_error' } });
    await down.recap.close();
  });
});
