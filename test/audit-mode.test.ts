import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPart } from './helpers/agent-task.js';
import { prose } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from './helpers/harness.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 29: `compaction.mode: audit`. recap plans every request as it would, forwards the client's
// bytes untouched, calls no summarizer, and says what it would have done (x-recap-audit, the
// projected x-recap-tokens-out, recap_projected_tokens_saved_total, events, the overview).

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const KEY = 'sk-audit-tenant';
const BUDGET = 2700;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [
      smallModel({ mode: 'audit' }),
      { ...smallModel(), match: 'gpt-test-enforce' },
      { match: 'gpt-test-tools', context_window: 9000, max_output_tokens: 1000, compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER }, mode: 'audit' } },
    ],
    extra: { background: { enabled: false }, store: { url: REDIS, key_prefix: `audit${Date.now()}${Math.random().toString(36).slice(2, 8)}` } },
  });
});
afterAll(async () => h?.close());

type Msg = Record<string, unknown>;

/** Sends `body` as these very bytes (spacing, key order and all), as a client may write them. */
async function send(conversation: string, body: string) {
  const res = await fetch(`${h.recap.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-conversation-id': conversation },
    body,
  });
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { choices: { message: { content: string } }[] };
  const header = (name: string) => res.headers.get(name);
  return {
    reply: reply.choices[0]!.message.content,
    action: header('x-recap-action'),
    audit: header('x-recap-audit'),
    tokensIn: Number(header('x-recap-tokens-in')),
    tokensOut: Number(header('x-recap-tokens-out')),
  };
}

/** A client's own formatting: keys in its order, a field recap must not touch, odd spacing. */
const clientBytes = (model: string, messages: Msg[]) => `{ "messages" : ${JSON.stringify(messages, null, 1)},\n  "seed":  12345678901234567890, "model":"${model}" }`;

async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${h.recap.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('audit mode', () => {
  const turns: Awaited<ReturnType<typeof send>>[] = [];

  it('forwards 60 rounds over budget byte for byte, calls no summarizer, and projects what it would have done', async () => {
    const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
    for (let t = 1; t <= 60; t++) {
      messages.push({ role: 'user', content: prose(t) });
      const body = clientBytes('gpt-test-small', messages);
      const forwarded = h.fake.requests.length;
      const turn = await send('audited', body);
      turns.push(turn);
      expect(h.fake.requests.length).toBe(forwarded + 1);
      expect(h.fake.requests.at(-1)!.body).toBe(body);
      expect(turn.action).toBe('none');
      messages.push({ role: 'assistant', content: turn.reply });
    }
    expect(h.fake.summarizerRequests()).toHaveLength(0);
    // The history ends far over budget; every projection fits it, as enforcing would have made it.
    expect(turns.at(-1)!.tokensIn).toBeGreaterThan(2 * BUDGET);
    for (const t of turns) expect(t.tokensOut).toBeLessThanOrEqual(BUDGET);
    const audits = turns.map((t) => t.audit);
    const first = audits.indexOf('compacted');
    expect(first).toBeGreaterThan(0);
    expect(audits.slice(0, first).every((a) => a === 'none')).toBe(true);
    for (const t of turns.slice(0, first)) expect(t.tokensOut).toBe(t.tokensIn);
    // Projected checkpoints are reused as stored ones would be: a few compactions, then reuse.
    const later = audits.slice(first + 1);
    expect(later.every((a) => a === 'reused' || a === 'compacted')).toBe(true);
    expect(later.filter((a) => a === 'reused').length).toBeGreaterThan(later.length / 2);
    for (const t of turns.slice(first)) expect(t.tokensOut).toBeLessThan(t.tokensIn);
  });

  it('counts the projected savings in the metrics, never as real savings', async () => {
    const projected = turns.reduce((n, t) => n + (t.tokensIn - t.tokensOut), 0);
    expect(projected).toBeGreaterThan(0);
    expect(await metric('recap_projected_tokens_saved_total{model="gpt-test-small"}')).toBe(projected);
    expect(await metric('recap_tokens_saved_total{model="gpt-test-small"}')).toBe(0);
    expect(await metric('recap_actions_total{model="gpt-test-small",action="none"}')).toBe(60);
    const compactions = turns.filter((t) => t.audit === 'compacted').length;
    expect(await metric('recap_audit_actions_total{model="gpt-test-small",audit="compacted"}')).toBe(compactions);
  });

  it('shows the projected savings in the events and the overview the dashboard reads', async () => {
    const projected = turns.reduce((n, t) => n + (t.tokensIn - t.tokensOut), 0);
    const get = async (target: string) => (await fetch(`${h.recap.url}${target}`, { headers: { authorization: `Bearer ${KEY}` } })).json();
    await waitFor('60 events', async () => (await get('/recap/v1/conversations')).conversations.some((c: { requests: number }) => c.requests === 60), 5_000);
    const { conversations } = await get('/recap/v1/conversations');
    expect(conversations.find((c: { id: string }) => c.id === 'audited')).toMatchObject({ tokens_saved: 0, projected_tokens_saved: projected, last_action: 'none' });
    const { events } = await get('/recap/v1/conversations/audited/events?limit=60');
    expect(events).toHaveLength(60);
    const newest = events[0];
    expect(newest).toMatchObject({ action: 'none', audit: turns.at(-1)!.audit, tokens_out: turns.at(-1)!.tokensIn, projected_tokens_out: turns.at(-1)!.tokensOut });
    const overview = await get('/recap/v1/overview?range=1h');
    const model = overview.models.find((m: { model: string }) => m.model === 'gpt-test-small');
    expect(model).toMatchObject({ mode: 'audit', requests: 60, tokens_saved: 0, projected_tokens_saved: projected, summarizer_calls: 0 });
    expect(model.audit.compacted).toBe(turns.filter((t) => t.audit === 'compacted').length);
  });

  it('stores nothing an enforcing model would use: the same conversation then compacts for real', async () => {
    const none = await fetch(`${h.recap.url}/recap/v1/conversations/audited`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(none.status).toBe(404);
    const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
    for (let t = 1; t <= 30; t++) messages.push({ role: 'user', content: prose(t) }, { role: 'assistant', content: `ok ${t}` });
    messages.push({ role: 'user', content: 'what next?' });
    const turn = await send('audited', clientBytes('gpt-test-enforce', messages));
    expect(turn.action).toBe('compacted');
    expect(turn.audit).toBeNull();
    expect(h.fake.summarizerRequests()).toHaveLength(1);
    expect(h.fake.requests.at(-1)!.body).not.toContain('projected summary');
  });

  it('says `cleared` where enforcing would only clear old tool results', async () => {
    const messages: Msg[] = [
      { role: 'system', content: 'You are an ops agent.' },
      { role: 'user', content: 'Read the deploy log part by part and report the root cause.' },
    ];
    const audits: (string | null)[] = [];
    for (let step = 0; step < 20; step++) {
      const id = `call_${step}`;
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_log', arguments: JSON.stringify({ part: step % 8 }) } }] });
      messages.push({ role: 'tool', tool_call_id: id, content: logPart([0, 1, 8, 9][step % 4]!) });
      const body = clientBytes('gpt-test-tools', messages);
      const turn = await send('audited-tools', body);
      expect(h.fake.requests.at(-1)!.body).toBe(body);
      expect(turn.tokensOut).toBeLessThanOrEqual(8000);
      audits.push(turn.audit);
    }
    expect(audits).toContain('cleared');
    expect(audits).not.toContain('compacted');
    expect(h.fake.summarizerRequests()).toHaveLength(1);
  });

  it('forwards a Responses API conversation byte for byte too, streamed or not, and projects it', async () => {
    const summarized = h.fake.summarizerRequests().length;
    const projectedBefore = await metric('recap_projected_tokens_saved_total{model="gpt-test-small"}');
    const input: Msg[] = [];
    const turns: { audit: string | null; action: string | null; tokensIn: number; tokensOut: number; budget: number }[] = [];
    for (let t = 1; t <= 40; t++) {
      input.push({ role: 'user', content: prose(t) });
      const stream = t % 2 === 0;
      const body = `{"model":"gpt-test-small",  "store":false, "input": ${JSON.stringify(input, null, 1)}${stream ? ', "stream": true' : ''} }`;
      const res = await fetch(`${h.recap.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-conversation-id': 'audited-responses' },
        body,
      });
      expect(res.status).toBe(200);
      const answer = await res.text();
      expect(answer).toContain(stream ? 'event: response.completed' : '"status":"completed"');
      expect(h.fake.requests.at(-1)!.body).toBe(body);
      const header = (name: string) => res.headers.get(name);
      turns.push({
        audit: header('x-recap-audit'),
        action: header('x-recap-action'),
        tokensIn: Number(header('x-recap-tokens-in')),
        tokensOut: Number(header('x-recap-tokens-out')),
        budget: Number(header('x-recap-budget')),
      });
      input.push({ role: 'assistant', content: `ok ${t}` });
    }
    expect(h.fake.summarizerRequests()).toHaveLength(summarized);
    expect(turns.every((t) => t.action === 'none')).toBe(true);
    expect(turns.at(-1)!.tokensIn).toBeGreaterThan(turns.at(-1)!.budget);
    for (const t of turns) expect(t.tokensOut).toBeLessThanOrEqual(t.budget);
    const audits = turns.map((t) => t.audit);
    expect(audits).toContain('compacted');
    expect(audits).toContain('reused');
    expect(await metric('recap_projected_tokens_saved_total{model="gpt-test-small"}')).toBe(projectedBefore + turns.reduce((n, t) => n + (t.tokensIn - t.tokensOut), 0));
  });
});
