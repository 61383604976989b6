import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory, storedCheckpoints } from '../helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';

// A turn is complete only when its stream ends as the API says a successful one ends: chat with
// `data: [DONE]`, Responses with `response.completed` (or `response.incomplete`). An upstream
// that fails after its headers are out sends an error event instead and closes the connection
// cleanly; the client's SDK raises it, so the turn is as lost as one whose connection broke: the
// checkpoint recap made for it is not kept, and the retry compacts again.

const CHAT = 'gpt-test-small';
const RESPONSES = 'gpt-test-responses';
const ERROR = { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [smallModel(), { ...smallModel(), match: RESPONSES }],
  });
});
afterAll(async () => h?.close());

const ROUTES = {
  chat: { path: '/chat/completions', model: CHAT, body: (model: string) => ({ model, messages: overBudgetHistory(), stream: true }), ends: '[DONE]' },
  responses: {
    path: '/responses',
    model: RESPONSES,
    body: (model: string) => ({ model, input: overBudgetHistory(), store: false, stream: true }),
    ends: 'response.completed',
  },
};

async function stream(route: (typeof ROUTES)[keyof typeof ROUTES], conversation: string) {
  const res = await fetch(`${h.recap.url}/v1${route.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-key', 'x-conversation-id': conversation },
    body: JSON.stringify(route.body(route.model)),
  });
  return { status: res.status, action: res.headers.get('x-recap-action'), text: await res.text() };
}

describe.each(Object.entries(ROUTES))('a %s stream that ends in an error event', (name, route) => {
  it('keeps no checkpoint; the retry compacts again, and a stream that ends well keeps one', async () => {
    const conversation = `stream-error-${name}`;
    const summaries = h.fake.summarizerRequests().length;
    // Two deltas, then the error and no successful end.
    h.fake.enqueue({ stream: { chunks: ['Partial ', 'answer'] }, sseError: ERROR }, { model: route.model });
    const failed = await stream(route, conversation);
    expect(failed.status).toBe(200);
    expect(failed.action).toBe('compacted');
    expect(failed.text).toContain('Partial ');
    expect(failed.text).toContain(ERROR.message);
    expect(failed.text).not.toContain(route.ends);
    expect(await storedCheckpoints(h.recap.url, conversation, 'sk-test-key', name)).toBe(0);
    expect(h.logs.lines.filter((l) => l.includes('"msg":"request"')).at(-1)).toContain('"outcome":"upstream_stream_failed"');

    const retry = await stream(route, conversation);
    expect(retry.text).toContain(route.ends);
    expect(retry.action).toBe('compacted');
    expect(h.fake.summarizerRequests().length).toBe(summaries + 2);
    expect(await storedCheckpoints(h.recap.url, conversation, 'sk-test-key', name)).toBe(1);

    const next = await stream(route, conversation);
    expect(next.action).toBe('reused');
  });
});
