import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overBudgetHistory } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 38: what the dashboard reads, through recap's own API. Every route counts, pass-through
// included (requests, errors, latency p50/p95 of the whole time and of recap's own); errors are
// listed with the conversation they belong to; recalls per model and per conversation; the
// listing searches and filters; a compacted request's event maps each of its messages to what
// recap did with it (no text); the login tells a value's kind without a 401; a caller without
// any credential is warned about once, in the log and on the overview.

const ADMIN = 'admin-token-data-0123456789abcdef';
const ALPHA = 'ck-alpha-data-5e7a9b1d3c2f4a6c8e0b1d3f5a7c';

let h: Harness;
const asAdmin = { 'x-recap-admin-token': ADMIN };
const asAlpha = { authorization: `Bearer ${ALPHA}` };

async function get<T>(target: string, headers: Record<string, string> = asAdmin): Promise<T> {
  const r = await rawRequest(h.recap.url, { target, headers });
  if (r.status !== 200) throw new Error(`${target}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as T;
}

async function chat(conversation: string, messages: unknown[], model = 'gpt-test-small') {
  return rawRequest(h.recap.url, { target: '/v1/chat/completions', headers: { ...asAlpha, 'x-conversation-id': conversation }, body: { model, messages } });
}

type Figures = {
  requests: number;
  errors: number;
  recalls: number;
  latency_ms: { p50: number | null; p95: number | null };
  own_latency_ms: { p50: number | null; p95: number | null };
};
type Overview = {
  total: Figures;
  models: (Figures & { model: string })[];
  routes: (Figures & { route: string })[];
  errors: { status: number; code: string | null; model: string; route: string; conversation: string | null; at: string }[];
  notices: string[];
};
type Entry = { id: string | null; conversation: string; model: string; last_action: string; recalls: number; requests: number };

const overview = () => get<Overview>('/recap/v1/overview?range=1h');
const listed = (query = '') => get<{ conversations: Entry[] }>(`/recap/v1/conversations?limit=200${query}`);

beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [smallModel(), { ...smallModel({ mode: 'audit' }), match: 'gpt-test-audit' }],
    extra: { background: { enabled: false }, server: { admin_token: ADMIN }, clients: [{ name: 'alpha', key: ALPHA }] },
  });
});
afterAll(async () => h?.close());

describe("the dashboard's data", () => {
  it('counts a pass-through request under its route, and an upstream error in the error list with its conversation', async () => {
    h.fake.enqueue({ status: 200, body: JSON.stringify({ object: 'list', data: [] }), headers: { 'content-type': 'application/json' } }, { path: '/v1/models' });
    expect((await rawRequest(h.recap.url, { target: '/v1/models', headers: asAlpha })).status).toBe(200);
    expect((await chat('fits', [{ role: 'user', content: 'hello' }])).status).toBe(200);
    h.fake.enqueue({ status: 503, body: JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }), headers: { 'content-type': 'application/json' } });
    expect((await chat('unlucky', [{ role: 'user', content: 'hello again' }])).status).toBe(503);

    await waitFor('the three requests counted', async () => (await overview()).total.requests === 3, 10_000);
    const o = await overview();
    const models = Object.fromEntries(o.routes.map((r) => [r.route, r]));
    expect(models.models).toMatchObject({ requests: 1, errors: 0 });
    expect(models.chat).toMatchObject({ requests: 2, errors: 1 });
    expect(o.models.find((m) => m.model === '(pass-through)')).toMatchObject({ requests: 1 });
    expect(o.models.find((m) => m.model === 'gpt-test-small')).toMatchObject({ requests: 2, errors: 1 });
    // Latency of every request, and recap's own part of those it forwarded after reading them.
    expect(o.total.latency_ms.p50).toBeGreaterThan(0);
    expect(o.total.latency_ms.p95).toBeGreaterThanOrEqual(o.total.latency_ms.p50!);
    expect(models.chat!.own_latency_ms.p50).not.toBeNull();
    expect(models.models!.own_latency_ms.p50).toBeNull();

    expect(o.errors).toHaveLength(1);
    const [error] = o.errors;
    expect(error).toMatchObject({ status: 503, code: null, model: 'gpt-test-small', route: 'chat' });
    const unlucky = (await listed()).conversations.find((c) => c.id === 'unlucky')!;
    expect(error!.conversation).toBe(unlucky.conversation);
    // The client's view: its own errors.
    expect((await get<Overview>('/recap/v1/overview?range=1h', asAlpha)).errors).toHaveLength(1);
  });

  it('maps each message of a compacted request to what recap did with it, as its checkpoint says', async () => {
    const messages = overBudgetHistory();
    const r = await chat('mapped', messages);
    expect(r.headers['x-recap-action']).toBe('compacted');
    await waitFor('its event written', async () => (await listed()).conversations.some((c) => c.id === 'mapped'), 10_000);
    const { events } = await get<{ events: { view: [number, number, string, string, number][]; summary_tokens: number; tokens_in: number }[] }>(
      '/recap/v1/conversations/mapped/events?client=alpha',
    );
    const [{ view, summary_tokens, tokens_in }] = events as [(typeof events)[0]];
    const { checkpoints } = await get<{ checkpoints: { covered_messages: number; kept_messages: number[]; cleared_messages: number[]; summary_tokens: number }[] }>(
      '/recap/v1/conversations/mapped?client=alpha',
    );
    const cp = checkpoints[0]!;
    // Message by message: every index once, in order, with the role it was sent with.
    const states: string[] = [];
    for (const [index, count, role, state] of view) {
      expect(index).toBe(states.length);
      for (let k = 0; k < count; k++) {
        const m = messages[index + k]!;
        if (role !== '*') expect(role).toBe(m.role);
        states.push(state);
      }
    }
    expect(states).toHaveLength(messages.length);
    const expected = messages.map((_, i) => {
      if (i === 0) return 'pinned';
      const after = i - 1;
      if (after < cp.covered_messages) return cp.kept_messages.includes(after) ? 'kept' : 'summarized';
      return cp.cleared_messages.includes(after) ? 'cleared' : 'kept';
    });
    expect(states).toEqual(expected);
    expect(states.filter((s) => s === 'summarized').length).toBeGreaterThan(10);
    // The summarized span is one row; the tokens of all rows are the request's (bar the reply priming).
    expect(view.filter((row) => row[3] === 'summarized')).toHaveLength(1);
    const sum = view.reduce((n, row) => n + row[4], 0);
    expect(tokens_in - sum).toBeGreaterThanOrEqual(0);
    expect(tokens_in - sum).toBeLessThan(10);
    expect(summary_tokens).toBe(cp.summary_tokens);
    // No text of any message in the event.
    expect(JSON.stringify(events)).not.toContain(String(messages[3]!.content).slice(0, 30));
  });

  it('finds conversations by part of their id, and filters them by model and action', async () => {
    const all = (await listed()).conversations;
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect((await listed('&q=UNLUC')).conversations.map((c) => c.id)).toEqual(['unlucky']);
    expect((await listed('&action=compacted')).conversations.map((c) => c.id)).toEqual(['mapped']);
    expect((await listed('&model=gpt-test-small&q=map')).conversations.map((c) => c.id)).toEqual(['mapped']);
    expect((await listed('&model=gpt-test-other')).conversations).toEqual([]);
    // A client finds its own by its exact id.
    expect((await get<{ conversations: Entry[] }>('/recap/v1/conversations?q=fits', asAlpha)).conversations.map((c) => c.id)).toEqual(['fits']);
    const past = new Date(Date.now() - 86_400_000).toISOString();
    expect((await listed(`&to=${past}`)).conversations).toEqual([]);
  });

  it('tells the login what a value is, answering 200 whatever it is', async () => {
    const login = async (value: string) => {
      const r = await rawRequest(h.recap.url, { target: '/recap/ui/login', headers: { 'x-recap-admin-token': value, authorization: `Bearer ${value}` } });
      expect(r.status).toBe(200);
      return JSON.parse(r.body) as { kind: string; client: string | null; admin_token: boolean; clients: boolean };
    };
    expect(await login(ADMIN)).toMatchObject({ kind: 'admin', admin_token: true });
    expect(await login(ALPHA)).toMatchObject({ kind: 'client', client: 'alpha' });
    expect(await login('admin-token-data-0123456789abcdeX')).toMatchObject({ kind: 'none', admin_token: true, clients: true });
  });
});

describe('a caller without any credential', () => {
  let anon: Harness;
  beforeAll(async () => {
    anon = await startHarness({ fake: { summarizerModel: SUMMARIZER }, models: [smallModel()], extra: { background: { enabled: false }, server: { admin_token: ADMIN } } });
  });
  afterAll(async () => anon?.close());

  it('is warned about once when its requests are compacted without records, in the log and on the overview', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await rawRequest(anon.recap.url, { target: '/v1/chat/completions', body: { model: 'gpt-test-small', messages: overBudgetHistory() } });
      expect(r.headers['x-recap-action']).toBe('compacted');
    }
    const warnings = anon.logs.lines.filter((l) => l.includes('compacted without records'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, msg: expect.stringContaining('server.anonymous: shared') });
    const r = await rawRequest(anon.recap.url, { target: '/recap/v1/overview?range=1h', headers: asAdmin });
    const { notices } = JSON.parse(r.body) as { notices: string[] };
    expect(notices).toEqual([expect.stringMatching(/^2 requests since .*: requests without any credential are compacted without records.*server\.anonymous: shared/)]);
  });

  it('is not warned about with server.anonymous: shared', async () => {
    const shared = await startHarness({
      fake: { summarizerModel: SUMMARIZER },
      models: [smallModel()],
      extra: { background: { enabled: false }, server: { anonymous: 'shared' } },
    });
    try {
      const r = await rawRequest(shared.recap.url, { target: '/v1/chat/completions', body: { model: 'gpt-test-small', messages: overBudgetHistory() } });
      expect(r.headers['x-recap-action']).toBe('compacted');
      expect(shared.logs.text).not.toContain('compacted without records');
    } finally {
      await shared.close();
    }
  });
});
