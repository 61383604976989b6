import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOpenAIError } from '../helpers/error-shape.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { chatHead, rawExchange } from '../helpers/raw-http.js';

// HTTP whose framing lies or is ambiguous, sent over a raw socket. Node's strict parser refuses
// the ambiguous shapes (the request-smuggling ones) and recap answers them in OpenAI's error shape
// and hangs up; a lying Content-Length delimits the body and nothing else. The upstream never sees
// any of it: recap frames every forwarded request itself.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ extra: { server: { headers_timeout_ms: 500, request_timeout_ms: 1000 } } });
});
afterAll(async () => h.close());

function body(content: string): string {
  return JSON.stringify({ model: 'gpt-test-1', messages: [{ role: 'user', content }] });
}

const BODY = body('hello');
const CHUNKED = `${Buffer.byteLength(BODY).toString(16)}\r\n${BODY}\r\n0\r\n\r\n`;
const LENGTH = Buffer.byteLength(BODY);

describe('ambiguous framing is refused', () => {
  it.each([
    ['Content-Length with Transfer-Encoding', [`Content-Length: ${LENGTH}`, 'Transfer-Encoding: chunked'], CHUNKED],
    ['Transfer-Encoding with Content-Length', ['Transfer-Encoding: chunked', `Content-Length: ${LENGTH}`], CHUNKED],
    ['Transfer-Encoding twice', ['Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'], CHUNKED],
    ['chunked, then identity', ['Transfer-Encoding: chunked', 'Transfer-Encoding: identity'], CHUNKED],
    ['a final coding other than chunked', ['Transfer-Encoding: gzip'], BODY],
    ['an unknown coding', ['Transfer-Encoding: xchunked'], CHUNKED],
    ['Content-Length twice, equal', [`Content-Length: ${LENGTH}`, `Content-Length: ${LENGTH}`], BODY],
    ['Content-Length twice, different', [`Content-Length: ${LENGTH}`, `Content-Length: ${LENGTH + 1}`], BODY],
    ['a list as Content-Length', [`Content-Length: ${LENGTH}, ${LENGTH}`], BODY],
    ['a signed Content-Length', [`Content-Length: +${LENGTH}`], BODY],
    ['a space before the colon', [`Content-Length : ${LENGTH}`], BODY],
    ['a folded header line', ['Transfer-Encoding: chunked', ' folded'], CHUNKED],
  ])('%s → 400 malformed_request, connection closed', async (_name, lines, payload) => {
    const before = h.fake.requests.length;
    const x = await rawExchange(h.recap.port, [chatHead(lines) + payload]);
    expect(x.responses).toHaveLength(1);
    expect(x.responses[0]!.status).toBe(400);
    expect(x.responses[0]!.headers.connection).toBe('close');
    expectOpenAIError(x.responses[0]!.body, 'malformed_request');
    expect(x.closedAfterMs).not.toBeNull();
    expect(h.fake.requests.length).toBe(before);
  });

  it('answers 431 headers_too_large to a header block over 16 KiB', async () => {
    const x = await rawExchange(h.recap.port, [chatHead([`X-Padding: ${'a'.repeat(20_000)}`, `Content-Length: ${LENGTH}`]) + BODY]);
    expect(x.responses[0]!.status).toBe(431);
    expectOpenAIError(x.responses[0]!.body, 'headers_too_large');
    expect(x.closedAfterMs).not.toBeNull();
  });
});

describe('a Content-Length that lies', () => {
  it('shorter than the body: the body ends there, the leftover bytes are refused, nothing is forwarded', async () => {
    const before = h.fake.requests.length;
    // The declared length cuts the JSON short; what follows is not a request.
    const x = await rawExchange(h.recap.port, [chatHead([`Content-Length: ${LENGTH - 3}`]) + BODY + 'GARBAGE\r\n\r\n']);
    expect(x.responses[0]!.status).toBe(400);
    // Which of the two refusals goes out first depends on how the bytes arrive.
    const code = (JSON.parse(x.responses[0]!.body) as { error: { code: string } }).error.code;
    expect(['malformed_request', 'invalid_json']).toContain(code);
    expectOpenAIError(x.responses[0]!.body, code);
    expect(x.closedAfterMs).not.toBeNull();
    expect(h.fake.requests.length).toBe(before);
  });

  it('shorter than the body with a whole request after it: two requests, each forwarded with its own body only', async () => {
    const before = h.fake.chatRequests().length;
    const first = body('first');
    const second = body('second');
    // The smuggling shape: a front end that trusted another length would see one request here.
    const bytes = chatHead([`Content-Length: ${Buffer.byteLength(first)}`]) + first + chatHead([`Content-Length: ${Buffer.byteLength(second)}`]) + second;
    const x = await rawExchange(h.recap.port, [bytes], { responses: 2 });
    expect(x.responses.map((r) => r.status)).toEqual([200, 200]);
    // Both are served at once (their replies go back in order): either may reach the upstream first.
    const forwarded = h.fake.chatRequests().slice(before);
    expect(forwarded.map((r) => r.body).sort()).toEqual([first, second].sort());
    for (const r of forwarded) expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
  });

  it('longer than the body, client waiting: 408 request_timeout once request_timeout_ms passes', async () => {
    const before = h.fake.requests.length;
    const x = await rawExchange(h.recap.port, [chatHead([`Content-Length: ${LENGTH + 50}`]) + BODY]);
    expect(x.responses[0]!.status).toBe(408);
    expectOpenAIError(x.responses[0]!.body, 'request_timeout');
    expect(x.closedAfterMs!).toBeGreaterThanOrEqual(900);
    expect(h.fake.requests.length).toBe(before);
    // The request's log line says what the client got.
    await expect.poll(() => h.logs.lines.some((l) => (JSON.parse(l) as { status?: number }).status === 408)).toBe(true);
  });

  it('longer than the body, client half-closing: 400 malformed_request at once', async () => {
    const before = h.fake.requests.length;
    const x = await rawExchange(h.recap.port, [chatHead([`Content-Length: ${LENGTH + 50}`]) + BODY], { then: 'end' });
    // At once: the half-close is answered, not the request timeout (which would be a 408).
    expect(x.responses[0]!.status).toBe(400);
    expectOpenAIError(x.responses[0]!.body, 'malformed_request');
    expect(x.closedAfterMs).not.toBeNull();
    expect(h.fake.requests.length).toBe(before);
  });
});
