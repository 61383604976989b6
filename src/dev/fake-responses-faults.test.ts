// Errors and faults on /v1/responses, as the official SDK meets them: HTTP errors, in-band stream
// errors, broken and stalled streams, latency, refused input and encrypted reasoning round trips.
import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, type RecordedRequest, startFakeUpstream } from './fake-upstream.js';

let fake: FakeUpstream;
let client: OpenAI;
const ask = { model: 'm', input: 'tell me a long story' };

beforeEach(async () => {
  fake ??= await startFakeUpstream();
  client ??= new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
  fake.reset();
  fake.setOptions({ chunkDelayMs: 0, latencyMs: 0 });
});
afterAll(() => fake.close());

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream);
}

describe('errors', () => {
  it('surfaces a scripted 429 as a RateLimitError, streaming or not', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '3' } }, { path: '/v1/responses' });
    const error = await client.responses.create(ask).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('3');
    fake.enqueue({ status: 500 });
    await expect(client.responses.create({ ...ask, stream: true })).rejects.toBeInstanceOf(OpenAI.InternalServerError);
  });

  it('answers a body that is not JSON with a 400 the SDK raises as BadRequestError', async () => {
    const res = await fetch(`${fake.url}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });

  it('ends a stream with an error event that the SDK raises, never with response.completed', async () => {
    fake.enqueue({ content: 'partial answer', sseError: { type: 'server_error', code: 'server_error', message: 'overloaded', param: null } });
    await expect(drain(await client.responses.create({ ...ask, stream: true }))).rejects.toThrow(/overloaded/);
    const sent = fake.sentBytes(fake.responsesRequests()[0]!).toString();
    expect(sent).toContain('"type":"response.output_text.delta"');
    const last = sent.trimEnd().split('\n\n').at(-1)!;
    expect(last.startsWith('event: error\ndata: {"type":"error",')).toBe(true);
    expect(JSON.parse(last.split('\ndata: ')[1]!).error.message).toBe('overloaded');
    expect(sent).not.toContain('response.completed');

    fake.enqueue({ content: 'partial', sseError: { type: 'server_error', message: 'overloaded again' } });
    await expect(client.responses.stream(ask).finalResponse()).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('refuses input that separates a tool output from its call, as OpenAI does', async () => {
    const input = [
      { role: 'user' as const, content: 'go' },
      { type: 'function_call_output' as const, call_id: 'call_gone', output: 'ok' },
    ];
    const error = await client.responses.create({ model: 'm', input }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('No tool call found for function call output with call_id call_gone.');
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('input');
    expect((await client.responses.create({ model: 'm', input, previous_response_id: 'resp_earlier' })).status).toBe('completed');
  });
});

describe('encrypted reasoning round trips', () => {
  type Reasoning = OpenAI.Responses.ResponseReasoningItem;
  type Call = OpenAI.Responses.ResponseFunctionToolCall;

  async function firstTurn(): Promise<[Reasoning, Call]> {
    fake.enqueue({ reasoning: { summary: ['Look it up first.'] }, toolCalls: [{ name: 'lookup', arguments: '{"id":7}' }] });
    const response = await client.responses.create({ model: 'm', input: 'find 7', store: false, include: ['reasoning.encrypted_content'] });
    return response.output as [Reasoning, Call];
  }

  it('accepts its reasoning items back unaltered, with their call answered', async () => {
    const [reasoning, call] = await firstTurn();
    const next = await client.responses.create({
      model: 'm',
      store: false,
      input: [{ role: 'user', content: 'find 7' }, reasoning, call, { type: 'function_call_output', call_id: call.call_id, output: 'found' }],
    });
    expect(next.status).toBe('completed');
  });

  it('refuses them altered with invalid_encrypted_content', async () => {
    const [reasoning, call] = await firstTurn();
    const altered = { ...reasoning, encrypted_content: reasoning.encrypted_content!.slice(0, -6) };
    const error = await client.responses
      .create({ model: 'm', input: [{ role: 'user', content: 'find 7' }, altered, call, { type: 'function_call_output', call_id: call.call_id, output: 'found' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_encrypted_content');
  });
});

describe('faults', () => {
  it('resetAfterBytes breaks a stream after exactly that many body bytes', async () => {
    fake.enqueue({ content: 'word '.repeat(200), resetAfterBytes: 1500 });
    let text = '';
    const consume = async () => {
      for await (const event of await client.responses.create({ ...ask, stream: true })) if (event.type === 'response.output_text.delta') text += event.delta;
    };
    await expect(consume()).rejects.toThrow();
    const record = fake.responsesRequests()[0]!;
    expect(fake.sentBytes(record)).toHaveLength(1500);
    expect(record.closedEarly).toBe(false);
  });

  it('pauses a stream after stall.afterEvents events with pings the SDK skips, then completes', async () => {
    fake.enqueue({ content: 'abc', stall: { ms: 250, afterEvents: 2, pingEveryMs: 50 } });
    const final = await client.responses.stream(ask).finalResponse();
    expect(final.output_text).toBe('abc');
    const frames = fake.sentBytes(fake.responsesRequests()[0]!).toString().split('\n\n').filter(Boolean);
    expect(frames[2]).toBe(': ping');
    expect(frames.at(-1)!.startsWith('event: response.completed\n')).toBe(true);
  });

  it('waits latencyMs plus the scripted delayMs before answering', async () => {
    fake.setOptions({ latencyMs: 60 });
    fake.enqueue({ delayMs: 60 });
    const started = Date.now();
    await client.responses.create(ask);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('marks closedEarly when the SDK aborts mid-stream', async () => {
    fake.setOptions({ chunkDelayMs: 30 });
    const closed = new Promise<RecordedRequest>((resolve) => fake.onClose(resolve));
    for await (const event of await client.responses.create({ ...ask, stream: true })) {
      if (event.type === 'response.output_text.delta') break;
    }
    const record = await closed;
    expect(record.closedEarly).toBe(true);
    expect(fake.sentBytes(record).toString()).not.toContain('response.completed');
  });
});
