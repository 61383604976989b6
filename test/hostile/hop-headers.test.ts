import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { chatHead, rawExchange } from '../helpers/raw-http.js';

// Headers that concern one hop only (RFC 9110 §7.6.1: the fixed hop-by-hop set and whatever
// `Connection` names) never cross recap, in either direction; neither do recap's own x-recap-*
// headers. Nominating a header in `Connection` cannot take away what recap itself sets: the
// upstream's credential, the framing of the forwarded body, recap's response headers.

const API_KEY = 'sk-server-side';
let h: Harness;
let keyed: Harness;
beforeAll(async () => {
  [h, keyed] = await Promise.all([startHarness(), startHarness({ apiKey: API_KEY })]);
});
afterAll(async () => Promise.all([h.close(), keyed.close()]));

const BODY = JSON.stringify({ model: 'gpt-test-1', messages: [{ role: 'user', content: 'hello' }] });

// Sent by the client; none may reach the upstream.
const HOP_LINES = [
  'Connection: keep-alive, X-Hop-A, x-hop-b',
  'X-Hop-A: a',
  'X-Hop-B: b',
  'Keep-Alive: timeout=5',
  'Proxy-Connection: keep-alive',
  'Proxy-Authorization: Basic Zm9vOmJhcg==',
  'TE: trailers',
  'Trailer: X-Checksum',
  'Upgrade: h2c',
  'X-Recap-Admin-Token: admin-token-0123456789',
  'X-Recap-Action: compacted',
  'X-Conversation-Id: conversation-1',
];
const NEVER_UPSTREAM = [
  'x-hop-a',
  'x-hop-b',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
  'x-recap-admin-token',
  'x-recap-action',
  'x-conversation-id',
];

async function sendRaw(target: Harness, head: string, body: string) {
  const before = target.fake.requests.length;
  const x = await rawExchange(target.recap.port, [head + body], { responses: 1 });
  expect(x.responses[0]!.status).toBe(200);
  expect(target.fake.requests.length).toBe(before + 1);
  return target.fake.requests.at(-1)!;
}

describe('request direction', () => {
  it.each([
    ['the chat route', '/v1/chat/completions'],
    ['a passthrough route', '/v1/embeddings'],
  ])('%s forwards no hop-by-hop, nominated or x-recap-* header', async (_name, path) => {
    const head = chatHead([...HOP_LINES, 'X-End-To-End: kept', `Content-Length: ${BODY.length}`]).replace('/v1/chat/completions', path);
    const received = await sendRaw(h, head, BODY);
    for (const name of NEVER_UPSTREAM) expect(received.headers[name], name).toBeUndefined();
    // recap's own hop to the upstream has its own Connection header (undici's keep-alive).
    expect(received.headers.connection ?? '').not.toMatch(/hop/i);
    expect(received.headers['x-end-to-end']).toBe('kept');
    expect(received.headers.authorization).toBe('Bearer sk-raw');
    expect(received.body).toBe(BODY);
  });

  it("cannot strip the upstream's own credential by nominating Authorization", async () => {
    const received = await sendRaw(keyed, chatHead(['Connection: authorization', `Content-Length: ${BODY.length}`]), BODY);
    expect(received.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('cannot break the framing of the forwarded body by nominating Content-Length, Content-Type or Host', async () => {
    const received = await sendRaw(h, chatHead(['Connection: content-length, content-type, host', `Content-Length: ${BODY.length}`]), BODY);
    expect(received.body).toBe(BODY);
    expect(received.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers.host).toBe(new URL(h.fake.origin).host);
  });
});

interface Seen {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(target: Harness, path: string, body: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${target.recap.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-e' } });
    req.on('response', async (res) => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(await res.toArray()).toString() }));
    req.on('error', reject);
    req.end(body);
  });
}

// Set by the upstream; none may reach the client (recap's own x-recap-* values replace forgeries).
const UPSTREAM_HOP = {
  connection: 'keep-alive, x-up-hop',
  'x-up-hop': 'up',
  'keep-alive': 'timeout=3, max=9',
  'proxy-authenticate': 'Basic realm="upstream"',
  upgrade: 'h2c',
  'x-recap-action': 'compacted',
  'x-recap-tokens-in': '999999',
  'x-recap-forged': 'yes',
  'x-end-to-end': 'kept',
};

describe('response direction', () => {
  it("an upstream's hop-by-hop headers and forged x-recap-* headers never reach the client", async () => {
    h.fake.enqueue({ headers: UPSTREAM_HOP });
    const seen = await get(h, '/v1/chat/completions', BODY);
    expect(seen.status).toBe(200);
    expect(seen.headers['x-up-hop']).toBeUndefined();
    expect(seen.headers['keep-alive']).not.toBe(UPSTREAM_HOP['keep-alive']);
    expect(seen.headers['proxy-authenticate']).toBeUndefined();
    expect(seen.headers.upgrade).toBeUndefined();
    expect(seen.headers['x-recap-forged']).toBeUndefined();
    expect(seen.headers['x-recap-action']).toBe('none');
    expect(Number(seen.headers['x-recap-tokens-in'])).toBeLessThan(100);
    expect(seen.headers['x-end-to-end']).toBe('kept');
    expect(seen.body).toBe(h.fake.sentBytes(h.fake.chatRequests().at(-1)!).toString());
  });

  it('a streamed reply loses its Trailer announcement but none of its events', async () => {
    h.fake.enqueue({ headers: { trailer: 'x-checksum', connection: 'x-recap-action', 'x-recap-action': 'forged' } });
    const seen = await get(h, '/v1/chat/completions', JSON.stringify({ ...JSON.parse(BODY), stream: true }));
    expect(seen.headers.trailer).toBeUndefined();
    expect(seen.headers['x-recap-action']).toBe('none');
    expect(seen.body).toBe(h.fake.sentBytes(h.fake.chatRequests().at(-1)!).toString());
  });

  it("an upstream nominating Content-Length or recap's headers cannot strip them or truncate the body", async () => {
    h.fake.enqueue({ headers: { connection: 'content-length, x-recap-action, x-recap-tokens-in' } });
    const seen = await get(h, '/v1/chat/completions', BODY);
    expect(seen.headers['x-recap-action']).toBe('none');
    expect(seen.headers['x-recap-tokens-in']).toBeDefined();
    expect(seen.body).toBe(h.fake.sentBytes(h.fake.chatRequests().at(-1)!).toString());
  });

  it('a passthrough reply carries no x-recap-* header recap did not set', async () => {
    h.fake.enqueue({ headers: { 'x-recap-action': 'compacted', 'x-end-to-end': 'kept' } }, { path: '/v1/embeddings' });
    const seen = await get(h, '/v1/embeddings', JSON.stringify({ model: 'text-embedding-3-small', input: 'hi' }));
    expect(seen.status).toBe(200);
    expect(seen.headers['x-recap-action']).toBeUndefined();
    expect(seen.headers['x-end-to-end']).toBe('kept');
  });
});
