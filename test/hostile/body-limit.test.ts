import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOpenAIError } from '../helpers/error-shape.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { chatHead, rawExchange } from '../helpers/raw-http.js';

// Chat bodies over server.body_limit_bytes get 413 body_too_large as soon as recap knows: at once
// from a declared Content-Length, else once the bytes received pass the limit. recap answers while
// the client is still sending, never buffers past the limit, and hangs up shortly after instead
// of reading the rest.

const LIMIT = 64 * 1024;
const MODEL = 'gpt-test-1';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ extra: { server: { body_limit_bytes: LIMIT } } });
});
afterAll(async () => h.close());

/** A chat body of exactly `bytes` bytes. */
function bodyOf(bytes: number): string {
  const empty = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: '' }] });
  return JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(bytes - empty.length) }] });
}

describe('body limit', () => {
  it('forwards a body of exactly the limit byte for byte, and refuses one byte more', async () => {
    const atLimit = bodyOf(LIMIT);
    expect(Buffer.byteLength(atLimit)).toBe(LIMIT);
    const ok = await fetch(`${h.recap.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: atLimit });
    expect(ok.status).toBe(200);
    expect(h.fake.chatRequests().at(-1)!.body).toBe(atLimit);

    const before = h.fake.requests.length;
    const over = await fetch(`${h.recap.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodyOf(LIMIT + 1) });
    expect(over.status).toBe(413);
    expectOpenAIError(await over.text(), 'body_too_large');
    expect(h.fake.requests.length).toBe(before);
  });

  it('answers 413 to a declared Content-Length over the limit before any body byte is sent, then hangs up', async () => {
    const before = h.fake.requests.length;
    const head = chatHead(['Content-Length: 10000000000']);
    const x = await rawExchange(h.recap.port, [head]);
    expect(x.bytesSent).toBe(head.length);
    expect(x.responses[0]!.status).toBe(413);
    expectOpenAIError(x.responses[0]!.body, 'body_too_large');
    // The client never sends its 10 GB; recap does not wait for them.
    expect(x.closedAfterMs).not.toBeNull();
    expect(h.fake.requests.length).toBe(before);
  });

  it('answers 413 to an endless chunked body while the client is still sending, then hangs up', async () => {
    const before = h.fake.requests.length;
    const chunk = `4000\r\n${'x'.repeat(0x4000)}\r\n`;
    // The client sends 16 KiB chunks without end and never the terminating chunk.
    const x = await rawExchange(h.recap.port, [chatHead(['Transfer-Encoding: chunked']), chunk], { then: 'repeat', gapMs: 2 });
    expect(x.responses[0]!.status).toBe(413);
    expectOpenAIError(x.responses[0]!.body, 'body_too_large');
    expect(x.closedAfterMs).not.toBeNull();
    expect(x.firstByteAfterMs!).toBeLessThan(x.closedAfterMs!);
    expect(h.fake.requests.length).toBe(before);
  });

  it('reaches ordinary clients as a 413 they can read, with or without Content-Length', async () => {
    const before = h.fake.requests.length;
    const big = Buffer.from(bodyOf(20 * 1024 * 1024));
    const declared = await fetch(`${h.recap.url}/v1/chat/completions`, { method: 'POST', body: big });
    expect(declared.status).toBe(413);
    expectOpenAIError(await declared.text(), 'body_too_large');

    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < big.length; at += 1 << 20) controller.enqueue(big.subarray(at, at + (1 << 20)));
        controller.close();
      },
    });
    const chunked = await fetch(`${h.recap.url}/v1/chat/completions`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    expectOpenAIError(await chunked.text(), 'body_too_large');

    const client = new OpenAI({ baseURL: `${h.recap.url}/v1`, apiKey: 'sk-limit', maxRetries: 0 });
    const err = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(LIMIT) }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    expect(h.fake.requests.length).toBe(before);
  });

  it('withholds 100 Continue from a body over the limit and answers 413 at once, and invites one within it', async () => {
    const before = h.fake.requests.length;
    const over = await rawExchange(h.recap.port, [chatHead([`Content-Length: ${LIMIT + 1}`, 'Expect: 100-continue'])], { responses: 1 });
    expect(over.responses.map((r) => r.status)).toEqual([413]);
    expectOpenAIError(over.responses[0]!.body, 'body_too_large');
    expect(h.fake.requests.length).toBe(before);

    const body = bodyOf(1000);
    const within = await rawExchange(h.recap.port, [chatHead([`Content-Length: ${body.length}`, 'Expect: 100-continue']), body], { gapMs: 200, responses: 2 });
    expect(within.responses.map((r) => r.status)).toEqual([100, 200]);
    expect(h.fake.chatRequests().at(-1)!.body).toBe(body);
  });
});
