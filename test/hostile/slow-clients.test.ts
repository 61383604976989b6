import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOpenAIError } from '../helpers/error-shape.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { chatHead, rawExchange } from '../helpers/raw-http.js';

// Clients that send or read too slowly. Sending: server.headers_timeout_ms and
// server.request_timeout_ms bound how long a request may take to arrive, so a trickling client
// cannot hold a connection (slowloris); a response stream, however long, is not cut by them.
// Reading: a client that stops reading a stream stalls the upstream through backpressure, so
// recap holds a bounded amount of the stream however much the upstream has to send.

const HEADERS_MS = 500;
const REQUEST_MS = 1000;
// docs/reliability-and-security.md's 8–16 MB (measured: 8.1–12.4 MB, as Linux grows the loopback sockets' buffers), in bytes, not MiB.
const STALLED_AT_MOST = 16_000_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    extra: { server: { headers_timeout_ms: HEADERS_MS, request_timeout_ms: REQUEST_MS } },
    // gpt-test-est calibrates, so recap also reads the reply's usage as it passes.
    models: [{ match: 'gpt-test-est', encoding: 'estimate' }, {}],
  });
});
afterAll(async () => h.close());

const BODY = JSON.stringify({ model: 'gpt-test-1', messages: [{ role: 'user', content: 'hello' }], stream: true });

describe('slow senders are cut off', () => {
  it('endless header lines, one every 50 ms, get 408 once headers_timeout_ms passes', async () => {
    const x = await rawExchange(h.recap.port, ['POST /v1/chat/completions HTTP/1.1\r\nHost: recap.test\r\n', 'X-Slow: 1\r\n'], { gapMs: 50, then: 'repeat' });
    expect(x.responses[0]!.status).toBe(408);
    expectOpenAIError(x.responses[0]!.body, 'request_timeout');
    expect(x.closedAfterMs).not.toBeNull();
    expect(x.closedAfterMs!).toBeGreaterThanOrEqual(HEADERS_MS - 50);
  });

  it('a connection that never sends a byte is closed with 408 once headers_timeout_ms passes', async () => {
    const x = await rawExchange(h.recap.port, []);
    expect(x.responses[0]!.status).toBe(408);
    expect(x.closedAfterMs).not.toBeNull();
  });

  it('a body trickled byte by byte gets 408 once request_timeout_ms passes, and nothing is forwarded', async () => {
    const before = h.fake.requests.length;
    const head = chatHead([`Content-Length: ${Buffer.byteLength(BODY)}`]);
    // At one byte per 30 ms the body would take ~3 s.
    const x = await rawExchange(h.recap.port, [head, ...BODY], { gapMs: 30 });
    expect(x.responses[0]!.status).toBe(408);
    expectOpenAIError(x.responses[0]!.body, 'request_timeout');
    expect(x.closedAfterMs!).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(x.bytesSent).toBeLessThan(head.length + BODY.length);
    expect(h.fake.requests.length).toBe(before);
  });

  it('a response stream that lasts longer than request_timeout_ms is not cut', async () => {
    h.fake.setOptions({ chunkDelayMs: 100 });
    h.fake.enqueue({ stream: { chunks: Array.from({ length: 14 }, (_, i) => `part ${i} `) } });
    const started = Date.now();
    const res = await fetch(`${h.recap.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
    const text = await res.text();
    h.fake.setOptions({ chunkDelayMs: 0 });
    expect(Date.now() - started).toBeGreaterThan(REQUEST_MS);
    expect(text).toContain('part 13');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});

/** Opens a streamed chat completion and hands back the response without reading any of it. */
function openStream(model: string, recapUrl = h.recap.url): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${recapUrl}/v1/chat/completions`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } });
    req.on('response', resolve);
    req.on('error', reject);
    req.end(JSON.stringify({ ...JSON.parse(BODY), model }));
  });
}

/** Polls `read` until it stops changing for `stableMs`, and returns that value. */
async function settled(read: () => number, stableMs = 600): Promise<number> {
  let last = -1;
  let since = Date.now();
  for (;;) {
    const now = read();
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since >= stableMs) return now;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('slow readers are held back', () => {
  it.each(['gpt-test-1', 'gpt-test-est'])('a client that stops reading stalls the upstream, and later receives every byte (%s)', async (model) => {
    const FLOOD = 128 * 1024 * 1024;
    h.fake.enqueue({ flood: FLOOD });
    const res = await openStream(model);
    const upstream = h.fake.chatRequests().at(-1)!;
    // The socket buffers between the fake, recap and the client fill up, then the fake's writes wait.
    const stalledAt = await settled(() => upstream.floodedBytes ?? 0);
    expect(stalledAt).toBeGreaterThan(0);
    // docs/reliability-and-security.md: an unread 128 MB stream stalls the upstream after 8–16 MB (the socket buffers on both sides, and recap's few MB).
    expect(stalledAt).toBeLessThanOrEqual(STALLED_AT_MOST);

    let received = 0;
    for await (const chunk of res) received += (chunk as Buffer).length;
    expect(received).toBe(FLOOD);
    expect(upstream.floodedBytes).toBe(FLOOD);
  });
});

describe('a client that stops reading for good', () => {
  const STALL_MS = 500;
  let stalling: Harness;
  beforeAll(async () => {
    stalling = await startHarness({ extra: { server: { client_stall_ms: STALL_MS } } });
  });
  afterAll(async () => stalling.close());

  it('is disconnected once it has taken in nothing for client_stall_ms, and its upstream request is cancelled', async () => {
    stalling.fake.enqueue({ flood: 128 * 1024 * 1024 });
    const res = await openStream('gpt-test-1', stalling.recap.url);
    // Never read: the buffers fill, recap's writes wait, and after STALL_MS recap gives up.
    const upstream = stalling.fake.chatRequests().at(-1)!;
    await expect.poll(() => upstream.closedEarly, { timeout: 5000 }).toBe(true);
    expect(upstream.floodedBytes).toBeLessThanOrEqual(STALLED_AT_MOST);
    await expect.poll(() => stalling.logs.lines.some((l) => l.includes('"outcome":"client_stalled"')), { timeout: 5000 }).toBe(true);
    // What the client had not read was buffered on its side; the connection behind it is gone.
    let received = 0;
    const ended = await new Promise<string>((resolve) => {
      res.on('data', (chunk: Buffer) => (received += chunk.length));
      res.on('end', () => resolve('end'));
      res.on('error', () => resolve('error'));
      res.on('close', () => resolve('close'));
    });
    expect(ended).not.toBe('end');
    expect(received).toBeLessThan(128 * 1024 * 1024);
  });
});
