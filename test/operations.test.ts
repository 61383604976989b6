import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantOf } from '../src/conversation/identify.js';
import { prose } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER, smallModel, TEST_SECRET } from './helpers/harness.js';

// Issue 7: what an operator sees. Metrics after a scripted conversation, logs that never carry a
// credential or message text, and the inspection endpoints scoped to the caller's tenant.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const MODEL = 'gpt-test-small';
const CANARY_KEY = 'sk-canary-7f3a9c1e5b2d4f6a8c0e';
const CANARY_TEXT = 'canary-message-text-91c4';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false }, server: { log_level: 'debug' } },
    models: [smallModel()],
  });
});
afterAll(async () => h.close());

async function scrape(): Promise<string> {
  return (await fetch(`${h.recap.url}/metrics`)).text();
}

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('operations', () => {
  const actions: string[] = [];
  it('runs a scripted conversation with a canary key', async () => {
    const client = h.client({ apiKey: CANARY_KEY, conversation: 'ops-conv' });
    const messages: Msg[] = [{ role: 'system', content: 'ops' }];
    for (let t = 1; t <= 30; t++) {
      messages.push({ role: 'user', content: `${prose(t)} ${CANARY_TEXT}` });
      const { data, response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
      actions.push(response.headers.get('x-recap-action')!);
      messages.push({ role: 'assistant', content: data.choices[0]!.message.content ?? '' });
    }
    expect(actions).toContain('compacted');
  });

  it('counts requests, actions, tokens and summarizer calls in /metrics', async () => {
    const text = await scrape();
    expect(value(text, `recap_requests_total{route="/v1/chat/completions",model="${MODEL}",status="200"}`)).toBe(30);
    for (const action of ['none', 'compacted', 'reused']) {
      expect(value(text, `recap_actions_total{model="${MODEL}",action="${action}"}`)).toBe(actions.filter((a) => a === action).length);
    }
    expect(value(text, `recap_summarizer_calls_total{model="${SUMMARIZER}",outcome="ok",mode="inline"}`)).toBe(h.fake.summarizerRequests().length);
    expect(value(text, `recap_tokens_saved_total{model="${MODEL}"}`)).toBeGreaterThan(0);
    expect(value(text, `recap_tokens_in_total{model="${MODEL}"}`)).toBeGreaterThan(value(text, `recap_tokens_out_total{model="${MODEL}"}`));
    expect(text).toContain('recap_store_duration_seconds_bucket');
    expect(text).toContain('recap_upstream_headers_seconds_bucket');
  });

  it('logs one line per request with the request fields and never a credential or message text', () => {
    const requests = h.logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request' && l.route === '/v1/chat/completions');
    expect(requests).toHaveLength(30);
    expect(requests.at(-1)).toMatchObject({ model: MODEL, status: 200, upstreamStatus: 200 });
    expect(requests.at(-1)).toHaveProperty('conversation');
    expect(requests.at(-1)).toHaveProperty('tokensIn');
    expect(requests.at(-1)).toHaveProperty('action');
    expect(h.logs.text).not.toContain(CANARY_KEY);
    expect(h.logs.text).not.toContain(CANARY_KEY.slice(3, 20));
    expect(h.logs.text).not.toContain(CANARY_TEXT);
  });

  it('shows the checkpoints to their tenant only, and forgets them on DELETE', async () => {
    const url = `${h.recap.url}/recap/v1/conversations/ops-conv`;
    const mine = await fetch(url, { headers: { authorization: `Bearer ${CANARY_KEY}` } });
    expect(mine.status).toBe(200);
    const body = (await mine.json()) as { version: number; checkpoints: { covered_messages: number; summary: string; summary_tokens: number }[] };
    expect(body.checkpoints.length).toBeGreaterThan(0);
    expect(body.checkpoints[0]!.covered_messages).toBeGreaterThan(0);
    expect(body.checkpoints[0]!.summary.length).toBeGreaterThan(0);

    const theirs = await fetch(url, { headers: { authorization: 'Bearer sk-someone-else' } });
    expect(theirs.status).toBe(404);
    expect(((await theirs.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await fetch(url, { method: 'DELETE', headers: { authorization: 'Bearer sk-someone-else' } })).status).toBe(404);

    expect((await fetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${CANARY_KEY}` } })).status).toBe(200);
    expect((await fetch(url, { headers: { authorization: `Bearer ${CANARY_KEY}` } })).status).toBe(404);

    const client = h.client({ apiKey: CANARY_KEY, conversation: 'ops-conv' });
    const messages: Msg[] = [{ role: 'system', content: 'ops' }];
    for (let t = 1; t <= 30; t++) messages.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: 'ok' });
    messages.push({ role: 'user', content: 'and now?' });
    const { response } = await client.chat.completions.create({ model: MODEL, messages }).withResponse();
    expect(response.headers.get('x-recap-action')).toBe('compacted');
  });

  it('lets a configured admin token inspect another tenant by its hash, and nobody else', async () => {
    const admin = 'admin-token-0123456789abcdef';
    const a = await startHarness({ fake: { summarizerModel: SUMMARIZER }, extra: { background: { enabled: false }, server: { admin_token: admin } }, models: [smallModel()] });
    const client = a.client({ apiKey: 'sk-owner', conversation: 'audited' });
    const messages: Msg[] = [{ role: 'system', content: 'ops' }];
    for (let t = 1; t <= 30; t++) messages.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: 'ok' });
    messages.push({ role: 'user', content: 'next?' });
    await client.chat.completions.create({ model: MODEL, messages });
    const tenant = tenantOf({ authorization: 'Bearer sk-owner' }, TEST_SECRET);
    const url = `${a.recap.url}/recap/v1/conversations/audited?tenant=${tenant}`;
    expect((await fetch(url, { headers: { authorization: 'Bearer sk-other', 'x-recap-admin-token': admin } })).status).toBe(200);
    expect((await fetch(url, { headers: { authorization: 'Bearer sk-other', 'x-recap-admin-token': 'wrong-token-0123456789' } })).status).toBe(404);
    expect((await fetch(url, { headers: { authorization: 'Bearer sk-other' } })).status).toBe(404);
    await a.close();
  });

  it('logs forwarded bodies only when server.log_bodies asks for it', async () => {
    const verbose = await startHarness({ extra: { server: { log_level: 'debug', log_bodies: true } } });
    await verbose.client().chat.completions.create({ model: 'gpt-test-1', messages: [{ role: 'user', content: CANARY_TEXT }] });
    await verbose.close();
    const bodyLine = verbose.logs.lines.find((l) => l.includes('"forwarded body"'));
    expect(bodyLine).toContain(CANARY_TEXT);
    expect(verbose.logs.text).not.toContain('sk-test-key');
  });

  it('reports health and readiness', async () => {
    expect((await fetch(`${h.recap.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${h.recap.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', store: 'ready' });
  });
});
