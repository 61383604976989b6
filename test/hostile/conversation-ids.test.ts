import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/messages/types.js';
import { tenantOf } from '../../src/conversation/identify.js';
import { expectOpenAIError } from '../helpers/error-shape.js';
import { prose } from '../helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER, smallModel, TEST_SECRET } from '../helpers/harness.js';
import { rawRequest } from '../helpers/plain-request.js';
import { waitFor } from '../helpers/redis-process.js';

// Issue 18, item 7: the inspection endpoints and what a client or an admin can put in their URL.
// A conversation id is the header's bytes; its percent-encoded UTF-8 in the URL names it. An
// admin's `?tenant=` that is no tenant hash is a bad request, never a store failure.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `ids${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const KEY = 'sk-ids-0123456789abcdef';
const ADMIN = 'admin-token-0123456789abcdef';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [smallModel()],
    extra: { background: { enabled: false }, server: { admin_token: ADMIN }, store: { url: REDIS, key_prefix: PREFIX } },
  });
});
afterAll(async () => h?.close());

function history(): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: 'ops' }];
  for (let t = 1; t <= 30; t++) out.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: `ok ${t}` });
  out.push({ role: 'user', content: 'What now?' });
  return out;
}

/**
 * Sends the id in the header as these bytes. fetch writes a header value as Latin-1, one byte per
 * char, so the bytes' Latin-1 string puts exactly them on the wire.
 */
const compact = async (id: string, encoding: BufferEncoding = 'utf8') => {
  const r = await fetch(`${h.recap.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-conversation-id': Buffer.from(id, encoding).toString('latin1') },
    body: JSON.stringify({ model: 'gpt-test-small', messages: history() }),
  });
  expect(r.headers.get('x-recap-action')).toBe('compacted');
};
const inspect = (target: string, method = 'GET', headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) =>
  rawRequest(h.recap.url, { method, target: `/recap/v1/conversations/${target}`, headers });
// The checkpoint is written once the reply reached the client, so a reader right after may be first.
const untilFound = (target: string) => waitFor(`${target} to be stored`, async () => (await inspect(target)).status === 200, 5_000);
const errorLogs = () => h.logs.lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);

describe('a non-ASCII conversation id', () => {
  it.each(['ticket-été-4411', '会話-42', 'support 🎫 #7'])('%s is inspected and deleted by its percent-encoded UTF-8', async (id) => {
    await compact(id);
    await untilFound(encodeURIComponent(id));
    const seen = await inspect(encodeURIComponent(id));
    expect(seen.status).toBe(200);
    expect(JSON.parse(seen.body).id).toBe(id);
    expect((await inspect(encodeURIComponent(id), 'DELETE')).status).toBe(200);
    expect((await inspect(encodeURIComponent(id))).status).toBe(404);
  });

  it('sent as Latin-1 bytes (what fetch does with `é`) is the same id, found by its percent-encoded UTF-8', async () => {
    await compact('café-latin1', 'latin1');
    await untilFound(encodeURIComponent('café-latin1'));
    expect((await inspect(encodeURIComponent('café-latin1'), 'DELETE')).status).toBe(200);
  });

  it('in a URL that is not percent-encoded UTF-8 gets a 400, not a lookup of something else', async () => {
    const r = await inspect('ticket-%E9t%E9');
    expect(r.status).toBe(400);
    expectOpenAIError(r.body, 'invalid_request', 'id');
    expect(errorLogs()).toEqual([]);
  });
});

describe("an admin's ?tenant=", () => {
  const admin = { 'x-recap-admin-token': ADMIN };

  it.each(['%7B', 'a%7Db', 'abc', 'x'.repeat(44), '..%2F..', '', '%00'])('"%s" that is no tenant hash gets a 400, and no error is logged', async (tenant) => {
    const r = await inspect(`some-conv?tenant=${tenant}`, 'GET', admin);
    expect(r.status).toBe(400);
    expectOpenAIError(r.body, 'invalid_request', 'tenant');
    expect((await inspect(`some-conv?tenant=${tenant}`, 'DELETE', admin)).status).toBe(400);
    expect(errorLogs()).toEqual([]);
  });

  it('that is a tenant hash finds that tenant’s records; without the admin token it is a 404', async () => {
    await compact('admin-looks');
    await untilFound('admin-looks');
    const tenant = tenantOf({ authorization: `Bearer ${KEY}` }, TEST_SECRET);
    expect((await inspect(`admin-looks?tenant=${tenant}`, 'GET', admin)).status).toBe(200);
    expect((await inspect(`admin-looks?tenant=${tenant}`, 'GET', {})).status).toBe(404);
    expect((await inspect('admin-looks?tenant=%7B', 'GET', {})).status).toBe(404);
  });
});
