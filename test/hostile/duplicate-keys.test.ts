import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOpenAIError } from '../helpers/error-shape.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from '../helpers/harness.js';

// JSON.parse keeps the last of two equal keys; an upstream may keep the first. A body naming a key
// that recap reads (`messages`, `model`, the budget's fields) twice would have recap act on one
// reading (compact one history, route one model) while the upstream serves the other: it is
// refused with 400 before anything is forwarded or summarized. Keys spelled with escapes are the
// same key. A duplicate of a field recap does not read is forwarded as written.

const PLAIN = 'gpt-test-plain';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false } }, models: [{ match: PLAIN }, smallModel()] });
});
afterAll(async () => h.close());

async function post(body: string) {
  const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-dupes' },
    body,
  });
  return { status: res.status, text: await res.text() };
}

const history = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} `.repeat(40) })));
const short = '[{"role":"user","content":"hi"}]';
// Over 1 MiB, so the body goes through the sliced parse.
const big = JSON.stringify([{ role: 'user', content: 'x'.repeat(1_200_000) }]);

describe('duplicate keys', () => {
  it.each([
    ['messages twice (full history first)', 'messages', `{"model":"gpt-test-small","messages":${history},"messages":${short}}`],
    ['messages twice (full history last)', 'messages', `{"model":"gpt-test-small","messages":${short},"messages":${history}}`],
    ['model twice', 'model', `{"model":"gpt-test-small","messages":${short},"model":"${PLAIN}"}`],
    ['messages spelled with an escape', 'messages', `{"model":"${PLAIN}","messages":${short},"me\\u0073sages":${short}}`],
    ['model spelled with escapes', 'model', `{"\\u006d\\u006fdel":"${PLAIN}","messages":${short},"model":"${PLAIN}"}`],
    ['max_tokens twice', 'max_tokens', `{"model":"${PLAIN}","max_tokens":1,"messages":${short},"max_tokens":100000}`],
    ['tools twice', 'tools', `{"model":"${PLAIN}","tools":[],"messages":${short},"tools":[]}`],
    ['messages twice in a body over 1 MiB', 'messages', `{"model":"${PLAIN}","messages":${big},"messages":${short}}`],
  ])('%s → 400 invalid_request naming the key, nothing forwarded', async (_name, key, body) => {
    const before = h.fake.requests.length;
    const res = await post(body);
    expect(res.status).toBe(400);
    expectOpenAIError(res.text, 'invalid_request', key);
    expect(h.fake.requests.length).toBe(before);
  });

  it('forwards a duplicate of a field recap does not read, as written', async () => {
    const body = `{"model":"${PLAIN}","temperature":0.1,"messages":${short},"temperature":0.2}`;
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(h.fake.chatRequests().at(-1)!.body).toBe(body);
  });
});
