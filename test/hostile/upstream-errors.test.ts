import { gunzipSync, gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../../src/dev/fake-upstream.js';
import { overBudgetHistory, storedCheckpoints } from '../helpers/conversation.js';
import { type Harness, smallModel, startHarness, SUMMARIZER } from '../helpers/harness.js';
import { type RawResponse, rawRequest } from '../helpers/plain-request.js';
import { waitFor } from '../helpers/redis-process.js';

// Upstream answers that are not a plain JSON 200: rate limits and outages with retry hints, an HTML
// error page from a load balancer, gzip bodies. The client gets exactly what the upstream said
// (status, headers and bytes that agree with each other), recap never retries on its own, and
// where recap has to answer itself, its reply carries none of the upstream's body headers.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    upstream: { timeouts: { body_idle_ms: 300 } },
    extra: { background: { enabled: false } },
    models: [smallModel(), {}],
  });
});
afterAll(async () => h.close());

/** Over node:http, so that the bytes are seen as they came over the wire (fetch would decode gzip). */
function rawPost(path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(h.recap.url, { method: 'POST', target: path, headers: { authorization: 'Bearer sk-test-key', ...headers }, body });
}

const chat = (content = 'hello') => ({ model: 'gpt-test-1', messages: [{ role: 'user' as const, content }] });

/** The upstream's own response headers (the fake's x-request-id and whatever the script set), as the client got them. */
function expectSameHeaders(raw: RawResponse, scripted: Record<string, string>): void {
  for (const [name, value] of Object.entries(scripted)) expect(raw.headers[name]).toBe(value);
  expect(raw.headers['x-request-id']).toMatch(/^req_fake_/);
  expect(Number(raw.headers['content-length'])).toBe(raw.bytes.length);
}

describe('rate limits and outages pass through, never retried by recap', () => {
  const hints = { 'retry-after': '7', 'retry-after-ms': '7000', 'x-should-retry': 'true' };

  it.each([429, 503])('%i with retry hints: same status, headers and bytes; the upstream saw one request', async (status) => {
    const before = h.fake.chatRequests().length;
    h.fake.enqueue({ status, headers: hints });
    const raw = await rawPost('/v1/chat/completions', chat());
    expect(h.fake.chatRequests()).toHaveLength(before + 1);
    expect(raw.status).toBe(status);
    expectSameHeaders(raw, hints);
    expect(raw.bytes.equals(h.fake.sentBytes(h.fake.chatRequests().at(-1)!))).toBe(true);

    h.fake.enqueue({ status, headers: hints });
    const err = await h
      .client()
      .chat.completions.create(chat())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(status === 429 ? OpenAI.RateLimitError : OpenAI.InternalServerError);
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('7');
    expect(h.fake.chatRequests()).toHaveLength(before + 2);
  });

  it('on another /v1 route too', async () => {
    const before = h.fake.requests.length;
    h.fake.enqueue({ status: 503, headers: hints }, { path: '/v1/embeddings' });
    const raw = await rawPost('/v1/embeddings', { model: 'text-embedding-3-small', input: 'x' });
    expect(raw.status).toBe(503);
    expectSameHeaders(raw, hints);
    expect(h.fake.requests).toHaveLength(before + 1);
  });

  it('a 429 or a 503 on a compacting turn stores nothing: only a 2xx shows the upstream served the caller (issue 19)', async () => {
    const send = async (conversation: string) => {
      const { response } = await h.client({ conversation }).chat.completions.create({ model: 'gpt-test-small', messages: overBudgetHistory() }).withResponse();
      return response.headers.get('x-recap-action');
    };
    const calls = h.fake.summarizerRequests().length;
    h.fake.enqueue({ status: 429, headers: hints });
    await expect(send('rate-limited')).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    expect(await storedCheckpoints(h.recap.url, 'rate-limited')).toBe(0);
    expect(await send('rate-limited')).toBe('compacted');
    // Written once the reply reached the client: a reader right after may be first.
    await waitFor('the checkpoint', async () => (await storedCheckpoints(h.recap.url, 'rate-limited')) === 1, 5_000);
    expect(h.fake.summarizerRequests()).toHaveLength(calls + 2);

    h.fake.enqueue({ status: 503, headers: hints });
    await expect(send('outage')).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    expect(await storedCheckpoints(h.recap.url, 'outage')).toBe(0);
    expect(await send('outage')).toBe('compacted');
    expect(h.fake.summarizerRequests()).toHaveLength(calls + 4);
  });
});

describe('bodies that are not plain JSON', () => {
  it('an HTML 502 from a load balancer reaches the client as sent, and the SDK raises it', async () => {
    const page = '<html><body><h1>502 Bad Gateway</h1></body></html>\n';
    const reply: ScriptedReply = { status: 502, body: page, headers: { 'content-type': 'text/html' } };
    h.fake.enqueue(reply);
    const raw = await rawPost('/v1/chat/completions', chat());
    expect(raw.status).toBe(502);
    expectSameHeaders(raw, { 'content-type': 'text/html' });
    expect(raw.bytes.toString()).toBe(page);

    h.fake.enqueue(reply);
    const err = await h
      .client()
      .chat.completions.create(chat())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((err as Error).message).toContain('502 Bad Gateway');
  });

  const completion = {
    id: 'chatcmpl-gz',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-test-1',
    choices: [{ index: 0, message: { role: 'assistant', content: 'zipped hello', refusal: null }, logprobs: null, finish_reason: 'stop' }],
  };
  const gzipHeaders = { 'content-encoding': 'gzip', 'content-type': 'application/json' };

  it('a gzip reply stays gzip: its bytes with their content-encoding and length, which the SDK decodes', async () => {
    const gz = gzipSync(JSON.stringify(completion));
    h.fake.enqueue({ body: gz, headers: gzipHeaders });
    const raw = await rawPost('/v1/chat/completions', chat());
    expect(raw.status).toBe(200);
    expectSameHeaders(raw, gzipHeaders);
    expect(raw.bytes.equals(gz)).toBe(true);
    expect(JSON.parse(gunzipSync(raw.bytes).toString())).toEqual(completion);

    h.fake.enqueue({ body: gz, headers: gzipHeaders });
    const viaSdk = await h.client().chat.completions.create(chat());
    expect(viaSdk.choices[0]!.message.content).toBe('zipped hello');
  });

  it('a gzip event stream reaches the SDK whole', async () => {
    const events = ['Zip', 'ped ', 'stream'].map(
      (content) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`,
    );
    const gz = gzipSync([...events, 'data: [DONE]\n\n'].join(''));
    h.fake.enqueue({ body: gz, headers: { 'content-encoding': 'gzip', 'content-type': 'text/event-stream' } });
    const stream = await h.client().chat.completions.create({ ...chat('zip'), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Zipped stream');
  });

  it('a gzip reply whose body never comes gets recap 504 with its own headers, not the gzip ones', async () => {
    h.fake.enqueue({ body: gzipSync(JSON.stringify(completion)), headers: gzipHeaders, stall: { ms: 5_000 } });
    const raw = await rawPost('/v1/chat/completions', chat());
    expect(raw.status).toBe(504);
    expect(raw.headers['content-encoding']).toBeUndefined();
    expect(raw.headers['x-request-id']).toBeUndefined();
    expect(raw.headers['content-type']).toBe('application/json');
    expect(Number(raw.headers['content-length'])).toBe(raw.bytes.length);
    expect(JSON.parse(raw.bytes.toString())).toMatchObject({ error: { code: 'upstream_timeout', type: 'api_error' } });
  });
});
