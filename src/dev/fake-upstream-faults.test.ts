// Faults the fake injects (broken streams, in-band errors, latency, stalls) and early client closes.
import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeUpstream, type RecordedRequest, startFakeUpstream } from './fake-upstream.js';

let fake: FakeUpstream;
let client: OpenAI;
const ask = { model: 'm', messages: [{ role: 'user' as const, content: 'tell me a long story' }] };

beforeEach(async () => {
  fake ??= await startFakeUpstream();
  client ??= new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 });
  fake.reset();
  fake.setOptions({ chunkDelayMs: 0, latencyMs: 0 });
});
afterAll(() => fake.close());

describe('broken connections', () => {
  it('resetAfterBytes breaks a stream after exactly that many body bytes', async () => {
    fake.enqueue({ content: 'word '.repeat(200), resetAfterBytes: 700 });
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    let received = '';
    const consume = async () => {
      for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? '';
    };
    await expect(consume()).rejects.toThrow();
    expect(received.length).toBeGreaterThan(0);
    const record = fake.chatRequests()[0]!;
    expect(fake.sentBytes(record)).toHaveLength(700);
    expect(record.closedEarly).toBe(false);
  });

  it('resetAfterBytes truncates a JSON body', async () => {
    fake.enqueue({ resetAfterBytes: 20 });
    await expect(client.chat.completions.create(ask)).rejects.toThrow();
    expect(fake.sentBytes(fake.chatRequests()[0]!)).toHaveLength(20);
  });

  it('marks closedEarly and calls onClose when the SDK aborts mid-stream', async () => {
    fake.setOptions({ chunkDelayMs: 30 });
    const closed = new Promise<RecordedRequest>((resolve) => fake.onClose(resolve));
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) break; // leaving the loop aborts the request
    }
    const record = await closed;
    expect(record.closedEarly).toBe(true);
    expect(fake.chatRequests()[0]).toBe(record);
    expect(fake.sentBytes(record).toString()).not.toContain('[DONE]');
  });

  it('does not mark a completed response as closed early', async () => {
    await client.chat.completions.create({ ...ask, stream: true }).then(async (s) => {
      for await (const _ of s);
    });
    expect(fake.chatRequests()[0]?.closedEarly).toBe(false);
  });
});

describe('in-band errors and delays', () => {
  it('emits an SSE error event that the SDK raises', async () => {
    fake.enqueue({ content: 'partial answer', sseError: { message: 'overloaded', type: 'server_error' } });
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    const consume = async () => {
      for await (const _ of stream);
    };
    await expect(consume()).rejects.toThrow(/overloaded/);
    const sent = fake.sentBytes(fake.chatRequests()[0]!).toString();
    expect(sent).toContain('data: {"error":{"message":"overloaded"');
    expect(sent).not.toContain('[DONE]');
  });

  it('waits latencyMs plus the scripted delayMs before answering', async () => {
    fake.setOptions({ latencyMs: 60 });
    fake.enqueue({ delayMs: 60 });
    const started = Date.now();
    await client.chat.completions.create(ask);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('holds a reply back until heldUntil settles', async () => {
    let release!: () => void;
    fake.enqueue({ content: 'released', heldUntil: new Promise<void>((resolve) => (release = resolve)) });
    const reply = client.chat.completions.create(ask);
    await expect.poll(() => fake.chatRequests().length).toBe(1);
    expect(fake.sentBytes(fake.chatRequests()[0]!)).toHaveLength(0);
    release();
    expect((await reply).choices[0]!.message.content).toBe('released');
  });

  it('lets a client time out on a scripted delay', async () => {
    fake.enqueue({ delayMs: 5_000 });
    const impatient = new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0, timeout: 100 });
    await expect(impatient.chat.completions.create(ask)).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    await expect.poll(() => fake.chatRequests()[0]?.closedEarly).toBe(true);
  });
});

describe('stalls', () => {
  it('sends the headers of a JSON reply, then holds its body for stall.ms', async () => {
    // Long enough that the headers cannot have waited for its end unnoticed, however loaded the machine.
    fake.enqueue({ stall: { ms: 1500 } });
    const started = Date.now();
    const res = await fetch(`${fake.url}/chat/completions`, { method: 'POST', body: JSON.stringify(ask) });
    // The headers are here while the fake has not written a byte of the body.
    expect(fake.sentBytes(fake.chatRequests()[0]!)).toHaveLength(0);
    const body = (await res.json()) as { object: string };
    expect(Date.now() - started).toBeGreaterThanOrEqual(1495);
    expect(fake.sentBytes(fake.chatRequests()[0]!).length).toBeGreaterThan(0);
    expect(body.object).toBe('chat.completion');
  });

  it('pauses a stream after stall.afterEvents events, pinging with SSE comments that the SDK skips', async () => {
    fake.enqueue({ stream: { chunks: ['a', 'b', 'c'] }, stall: { ms: 300, afterEvents: 2, pingEveryMs: 50 } });
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('abc');
    const sent = fake.sentBytes(fake.chatRequests()[0]!).toString();
    const events = sent.split('\n\n').filter(Boolean);
    expect(events[2]).toBe(': ping');
    expect(events.filter((e) => e === ': ping').length).toBeGreaterThanOrEqual(3);
    expect(events.at(-1)).toBe('data: [DONE]');
  });

  it('sends a Buffer body verbatim (e.g. gzip bytes with their content-encoding)', async () => {
    const gz = gzipSync(JSON.stringify({ object: 'list', data: [] }));
    fake.enqueue({ body: gz, headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' } }, { path: '/v1/models' });
    const models = await client.models.list();
    expect(models.data).toEqual([]);
    expect(fake.sentBytes(fake.requests[0]!).equals(gz)).toBe(true);
  });
});

describe('requests the fake could not handle', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;
  const post = (path: string, body: string) => fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('answers bodies nested 20,000 levels deep (JSON.stringify of them overflowed the stack and ended the process)', async () => {
    const chat = await post('/chat/completions', `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi","x":${deep(20_000)}}]}]}`);
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { object: string }).object).toBe('chat.completion');
    const responses = await post('/responses', `{"model":"m","input":[{"role":"user","content":"hi","x":${deep(20_000)}}]}`);
    expect(responses.status).toBe(200);
  });

  it('answers 500 in an error shape when a script throws, and goes on serving', async () => {
    fake.setDefault(() => {
      throw new Error('script broke');
    });
    const broken = await post('/chat/completions', JSON.stringify(ask));
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ error: { message: 'fake upstream: Error: script broke', type: 'server_error', code: 'fake_upstream_error' } });
    fake.reset();
    expect((await post('/chat/completions', JSON.stringify(ask))).status).toBe(200);
  });
});
