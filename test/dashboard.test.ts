import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import {
  ALPHA_KEY as A,
  ADMIN_TOKEN as ADMIN,
  AGENT,
  AUDITED,
  BRAVO_KEY as B,
  BRAVO,
  dashboardConfig,
  MODELS,
  OUTAGE,
  PASTE,
  REQUESTS,
  sendDashboardTraffic,
} from './helpers/dashboard-traffic.js';
import { type Harness, SUMMARIZER, startHarness } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { dumpRedis } from './helpers/redis-dump.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 29: the dashboard at /recap/ui, in a real browser (Debian's headless Chromium). The admin
// token sees every tenant: the overview's figures, a compacted conversation's chart, summary,
// ledger and checkpoints, an agent's cleared tool results, an audited model's projected savings;
// it forgets a conversation, which is then gone from the store. A client key sees its own tenant
// only; without a key there is the login form and the APIs answer 401. The key stays in the tab's
// sessionStorage, and no request leaves for another origin. Summaries are client-derived text:
// markup in them stays text. (The screenshots in docs/ come from bench/dashboard-screenshots.ts.)

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `ui${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
const DECISION = `We decided to ship ${XSS} on Friday.`;
// A conversation id is the client's text too.
const TICKET = 'deploy <b>ORD-4411</b>';

let h: Harness;
let browser: TestBrowser | undefined;
let page: Page;
const problems: string[] = [];
const requested: string[] = [];
const foreign: string[] = [];

type Entry = { id: string | null; conversation: string; requests: number; projected_tokens_saved: number; tokens_saved: number };
type Figures = {
  requests: number;
  tokens_in: number;
  tokens_out: number;
  tokens_saved: number;
  projected_tokens_saved: number;
  summarizer_calls: number;
  over_budget: number;
  actions: Record<string, number>;
};
type Overview = { from: string; to: string; bucket_seconds: number; buckets: { at: string; models: Record<string, Figures> }[]; models: (Figures & { model: string })[] };

const sumOf = (all: Figures[]): Figures => {
  const total: Figures = { requests: 0, tokens_in: 0, tokens_out: 0, tokens_saved: 0, projected_tokens_saved: 0, summarizer_calls: 0, over_budget: 0, actions: {} };
  for (const f of all) for (const k of ['requests', 'tokens_in', 'tokens_out', 'tokens_saved', 'projected_tokens_saved'] as const) total[k] += f[k];
  return total;
};

const who = (key: string): Record<string, string> => (key === ADMIN ? { 'x-recap-admin-token': ADMIN } : { authorization: `Bearer ${key}` });

async function api<T>(key: string, target: string): Promise<{ status: number; body: T }> {
  const r = await rawRequest(h.recap.url, { target, headers: who(key) });
  return { status: r.status, body: JSON.parse(r.body) as T };
}

const listed = async (key: string) => (await api<{ conversations: Entry[] }>(key, '/recap/v1/conversations?limit=200')).body.conversations;
const entryOf = async (id: string) => (await listed(ADMIN)).find((c) => c.id === id)!;

async function logIn(key: string) {
  await page.goto(`${h.recap.url}/recap/ui`);
  await page.locator('#key').fill(key);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

/** The value shown on the overview's or a conversation's card named `label`. */
const cardValue = (label: string) =>
  page
    .locator('.card', { has: page.locator('.label', { hasText: label }) })
    .locator('.value')
    .textContent();

/** The cells of the per-model table's row of `model`, by heading. */
async function modelRow(model: string): Promise<Record<string, string>> {
  const headings = await page.locator('table.models thead th').allTextContents();
  const cells = await page
    .locator('table.models tbody tr', { has: page.locator('td:first-child', { hasText: new RegExp(`^${model}$`) }) })
    .locator('td')
    .allTextContents();
  return Object.fromEntries(headings.map((heading, i) => [heading, cells[i] ?? '']));
}

type Event = { action: string; compaction?: 'summary' | 'clearing'; tokens_out: number };

/** A conversation's events, oldest first, as the chart plots them. */
async function eventsOf(id: string): Promise<Event[]> {
  const { body } = await api<{ events: Event[] }>(A, `/recap/v1/conversations/${encodeURIComponent(id)}/events?limit=200`);
  return body.events.reverse();
}

/** The chart's legend (label → value) once the cursor is at `fraction` of its width and `ready` holds. */
async function legendAt(chart: string, fraction: number, ready: (legend: Record<string, string>) => boolean): Promise<Record<string, string>> {
  const box = (await page.locator(`${chart} .u-over`).boundingBox())!;
  await page.mouse.move(box.x + fraction * (box.width - 1), box.y + box.height / 2);
  const rows = page.locator(`${chart} .u-legend .u-series`);
  const read = async () => {
    const labels = await rows.locator('.u-label').allTextContents();
    const values = await rows.locator('.u-value').allTextContents();
    return Object.fromEntries(labels.map((label, i) => [label, values[i]!]));
  };
  await expect.poll(async () => ready(await read())).toBe(true);
  return read();
}

/** The conversation chart's legend with the cursor on request `n` (1-based) of `of`. */
const requestLegend = (n: number, of: number) => legendAt('#conversation-chart', (n - 1) / (of - 1), (legend) => legend.request === String(n));

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** On the chart, the marker `kind` is on every request that made a summary, cleared or degraded, at its forwarded tokens, and not the one before. */
async function expectMarkers(id: string, kind: 'summary' | 'clearing' | 'degraded') {
  const events = await eventsOf(id);
  const marked = events.flatMap((e, i) => ((kind === 'degraded' ? e.action === kind : e.compaction === kind) ? [i + 1] : []));
  expect(marked.length).toBeGreaterThan(0);
  // Each marked request, and the one before the first (unmarked).
  for (const n of [marked[0]! - 1, ...marked].filter((n) => n >= 1)) {
    const legend = await requestLegend(n, events.length);
    expect(legend[kind]).toBe(marked.includes(n) ? compact.format(events[n - 1]!.tokens_out) : '–');
    expect(legend.forwarded).toBe(compact.format(events[n - 1]!.tokens_out));
  }
}

async function openConversation(name: string) {
  await page.getByRole('link', { name: 'Conversations', exact: true }).click();
  await page.getByRole('link', { name, exact: true }).click();
  await page.locator('#conversation-chart canvas').first().waitFor();
  expect(await page.locator('h1').textContent()).toBe(name);
}

beforeAll(async () => {
  h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, ...dashboardConfig({ store: { url: REDIS, key_prefix: PREFIX } }) });
  await sendDashboardTraffic(h.recap.url, h.fake, { ticket: TICKET, decision: DECISION });
  await waitFor('every event written', async () => (await listed(ADMIN)).reduce((n, c) => n + c.requests, 0) === REQUESTS, 10_000);
  browser = await launchBrowser();
  // Nothing may leave for another origin: such a request is noted and refused.
  await browser.context.route(
    (url) => url.origin !== h.recap.url,
    (route) => (foreign.push(route.request().url()), route.abort()),
  );
  browser.context.on('request', (r) => requested.push(r.url()));
  page = await browser.context.newPage();
  // A locator that never matches fails within the test's time, naming what it waited for.
  browser.context.setDefaultTimeout(10_000);
  // The 401s and 404s the tests ask for show as failed loads; anything else (a CSP refusal) is a problem.
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('dialog', (d) => (d.type() === 'confirm' ? d.accept() : (problems.push(`unexpected ${d.type()}: ${d.message()}`), d.dismiss())));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('the dashboard', () => {
  it('shows the login form without a key, and the APIs answer 401', async () => {
    await page.goto(`${h.recap.url}/recap/ui`);
    await page.locator('#key').waitFor();
    expect(await page.locator('#nav').isHidden()).toBe(true);
    const paths = ['/recap/v1/conversations', `/recap/v1/conversations/${BRAVO}/events`, '/recap/v1/overview', '/recap/v1/whoami'];
    const statuses = await page.evaluate(async (all) => Promise.all(all.map(async (path) => (await fetch(path)).status)), paths);
    expect(statuses).toEqual([401, 401, 401, 401]);
    await page.locator('#key').fill('ck-not-a-key-00000000000000000000000000000');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'does not accept' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it("logs in with the admin token: every tenant's tokens sent, forwarded and saved, actions, summarizer spend, over budget and degraded", async () => {
    await logIn(ADMIN);
    expect(await page.locator('#who').textContent()).toContain('admin');
    // The last hour, by the minute: the requests above made a few seconds ago.
    await page.getByRole('link', { name: '1h' }).click();
    await page.locator('.ranges a.active', { hasText: '1h' }).waitFor();
    await page.locator('#overview-chart canvas').first().waitFor();
    const legend = await page.locator('#overview-chart .u-legend').textContent();
    for (const series of ['sent', 'forwarded', 'saved', 'projected saved']) expect(legend).toContain(series);

    const { body } = await api<Overview>(ADMIN, '/recap/v1/overview?range=1h');
    const total = (f: (m: Figures) => number) => body.models.reduce((n, m) => n + f(m), 0);
    expect(total((m) => m.requests)).toBe(REQUESTS);
    expect(await cardValue('Requests')).toBe(String(REQUESTS));
    expect(total((m) => m.summarizer_calls)).toBeGreaterThan(0);
    expect(await cardValue('Summarizer')).toMatch(new RegExp(`^${total((m) => m.summarizer_calls)} calls?$`));
    // The pasted log alone is over the budget; the outage conversation's over-budget turns degraded.
    expect(await cardValue('Over budget')).toBe('1');
    const degraded = total((m) => m.actions.degraded ?? 0);
    expect(degraded).toBeGreaterThan(0);
    expect(await cardValue('Degraded')).toBe(String(degraded));
    expect(await cardValue('Tokens saved')).not.toBe('0');

    const compacting = await modelRow(MODELS.compacting);
    expect(compacting).toMatchObject({ Mode: 'enforce', 'Over budget': '1', 'Projected saved': '–' });
    expect(compacting.Actions).toMatch(/compacted \d+/);
    expect(compacting.Actions).toMatch(/reused \d+/);
    expect(compacting.Actions).toContain(`degraded ${degraded}`);
    const audited = await modelRow(MODELS.audited);
    expect(audited).toMatchObject({ Mode: 'audit', Requests: '26', Summarizer: '0 calls, 0 tokens' });
    expect(audited.Saved).toMatch(/^0 /);
    expect(audited['Projected saved']).not.toBe('–');
    expect(audited.Audit).toMatch(/compacted \d+/);
    expect(await cardValue('Projected savings')).toBe(audited['Projected saved']);
    expect((await modelRow(MODELS.agent)).Summarizer).toBe('0 calls, 0 tokens');

    // Over time, per model: the chart's newest minutes show the picked model's tokens sent, forwarded and saved.
    const { from, to, bucket_seconds, buckets } = (await api<Overview>(ADMIN, '/recap/v1/overview?range=1h')).body;
    const step = bucket_seconds * 1000;
    const points = Math.floor((Date.parse(to) - Math.floor(Date.parse(from) / step) * step) / step) + 1;
    for (const model of ['', MODELS.compacting, MODELS.audited]) {
      await page.locator('#chart-model').selectOption(model);
      const figures = buckets.map((b) => (model ? b.models[model] : sumOf(Object.values(b.models)))).filter((f): f is Figures => f !== undefined && f.requests > 0);
      const expected = figures.map((f) => [f.tokens_in, f.tokens_out, f.tokens_saved, f.projected_tokens_saved].map((n) => compact.format(n)).join(' '));
      const seen = new Set<string>();
      let time = '--';
      for (let k = points - 1; k >= points - 5; k--) {
        const legend = await legendAt('#overview-chart', k / (points - 1), (l) => l.time !== time && l.time !== '--');
        time = legend.time!;
        if (legend.sent !== '0') seen.add([legend.sent, legend.forwarded, legend.saved, legend['projected saved']].join(' '));
      }
      expect([...seen].sort()).toEqual(expected.sort());
    }
    await page.locator('#chart-model').selectOption('');
  });

  it('lists every tenant’s conversations, each named by its client', async () => {
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.locator('table.list tbody tr').first().waitFor();
    const rows = await page.locator('table.list tbody tr').allTextContents();
    expect(rows).toHaveLength(6);
    // Newest first.
    expect(rows[0]).toContain(BRAVO);
    expect(rows[0]).toContain('bravo');
    expect(rows.find((r) => r.includes(PASTE))).toContain('alpha');
    expect(rows.find((r) => r.includes(AUDITED))).toContain('projected');
    // The id is shown as the text the client sent, markup and all.
    expect(rows.some((r) => r.includes(TICKET))).toBe(true);
    expect(await page.locator('table.list b').count()).toBe(0);
  });

  it("shows a compacted conversation's chart, summary, ledger and checkpoints, its markup as text", async () => {
    await openConversation(TICKET);
    const summary = await page.locator('#summary-text').textContent();
    expect(summary).toContain('Friday');
    expect(summary).toContain(XSS);
    expect(await page.locator('#summary-text *').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    // Each identifier as the summary carries it, with where it was read.
    const ledger = await page.locator('#ledger li').allTextContents();
    expect(ledger.length).toBeGreaterThan(0);
    for (const line of ledger) expect(line).toMatch(/^\S+ (task|user|system|developer|call|assistant|summary|earlier|other|tool)$/);
    expect(ledger.some((line) => line.startsWith('ORD-'))).toBe(true);
    expect(await page.locator('table.checkpoints tbody tr').count()).toBeGreaterThan(0);
    // Client tokens vs forwarded per request, the compactions marked.
    const legend = await page.locator('#conversation-chart .u-legend').textContent();
    for (const series of ['client tokens', 'forwarded', 'budget', 'summary', 'clearing']) expect(legend).toContain(series);
    await expectMarkers(TICKET, 'summary');
    const actions = await page.locator('table.events tbody td:nth-child(2)').allTextContents();
    expect(actions).toHaveLength(26);
    expect(actions).toContain('compacted');
    expect(actions).toContain('reused');
    expect(await cardValue('Tokens saved')).not.toBe('0');
  });

  it("shows an agent's cleared tool results, with no summary made", async () => {
    await openConversation(AGENT);
    const stubs = await page.locator('#stubs h3').textContent();
    expect(Number(stubs?.match(/Cleared tool results \((\d+)\)/)?.[1])).toBeGreaterThan(3);
    expect(await page.locator('#stubs .stubs').textContent()).toMatch(/^#\d+( #\d+)+$/);
    expect(await page.locator('#summary-text').count()).toBe(0);
    expect(await page.locator('.current').textContent()).toContain('clears tool results only');
    await expectMarkers(AGENT, 'clearing');
    const cleared = await page.locator('table.events tbody td:nth-child(6)').allTextContents();
    expect(cleared.some((n) => Number(n) > 0)).toBe(true);
  });

  it("shows an audited conversation's projected savings, what it forwarded being the client's own", async () => {
    await openConversation(AUDITED);
    const entry = await entryOf(AUDITED);
    expect(entry.tokens_saved).toBe(0);
    expect(entry.projected_tokens_saved).toBeGreaterThan(0);
    expect(await cardValue('Projected savings')).toBe(compact.format(entry.projected_tokens_saved));
    expect(await page.locator('#conversation-chart .u-legend').textContent()).toContain('projected');
    expect(await page.locator('table.events thead').textContent()).toContain('Audit');
    const audits = await page.locator('table.events tbody td:nth-child(3)').allTextContents();
    expect(audits).toContain('compacted');
    expect(audits).toContain('reused');
    expect(new Set(await page.locator('table.events tbody td:nth-child(2)').allTextContents())).toEqual(new Set(['none']));
  });

  it('marks the requests that degraded while the summarizer failed', async () => {
    await openConversation(OUTAGE);
    await expectMarkers(OUTAGE, 'degraded');
    expect(await page.locator('table.events').textContent()).toContain('degraded');
    await page.getByText('No checkpoint: nothing compacted yet').waitFor();
  });

  it('forgets the conversation: gone from the list, the API and the store', async () => {
    const { conversation } = await entryOf(TICKET);
    expect((await dumpRedis(REDIS, PREFIX)).text).toContain(conversation);
    await openConversation(TICKET);
    await page.locator('#forget').click();
    await page.getByRole('heading', { name: 'Conversations' }).waitFor();
    await page.locator('table.list tbody tr').first().waitFor();
    const rows = await page.locator('table.list tbody tr').allTextContents();
    expect(rows).toHaveLength(5);
    expect(rows.some((r) => r.includes(TICKET))).toBe(false);
    const id = encodeURIComponent(TICKET);
    expect((await api(A, `/recap/v1/conversations/${id}/events`)).status).toBe(404);
    expect((await api(A, `/recap/v1/conversations/${id}`)).status).toBe(404);
    // Its record (summary and all), its events and its entry in both indexes.
    const stored = (await dumpRedis(REDIS, PREFIX)).text;
    expect(stored).not.toContain(conversation);
    expect(stored).not.toContain('ORD-4411');
    expect(stored).not.toContain('Friday');
  });

  it('shows a client key its own tenant only, and logs out', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('#key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await logIn(B);
    expect(await page.locator('#who').textContent()).toBe('client bravo');
    expect(await page.locator('table.models').textContent()).not.toContain(MODELS.audited);
    expect(await cardValue('Requests')).toBe('3');
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.locator('table.list tbody tr').first().waitFor();
    const rows = await page.locator('table.list tbody tr').allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(BRAVO);
    expect(await page.locator('table.list thead').textContent()).not.toContain('Tenant');
    // Another tenant's conversation, asked for by hand (its very hash), is not found.
    const { conversation } = await entryOf(AGENT);
    await page.goto(`${h.recap.url}/recap/ui#/conversation?ref=${conversation}`);
    await page.getByRole('alert').filter({ hasText: 'Not found' }).waitFor();
  });

  it('keeps the key in this tab’s sessionStorage only: no cookie, no localStorage, not in another tab', async () => {
    const stored = await page.evaluate(() => ({ session: Object.values(sessionStorage), local: localStorage.length, cookie: document.cookie }));
    expect(stored.session).toHaveLength(1);
    expect(stored.session[0]).toContain(B);
    expect(stored).toMatchObject({ local: 0, cookie: '' });
    expect(await browser!.context.cookies()).toEqual([]);
    // The same tab keeps it over a reload; a new tab starts at the login form.
    await page.reload();
    await page.getByRole('alert').filter({ hasText: 'Not found' }).waitFor();
    expect(await page.locator('#who').textContent()).toBe('client bravo');
    const other = await browser!.context.newPage();
    try {
      await other.goto(`${h.recap.url}/recap/ui`);
      await other.locator('#key').waitFor();
    } finally {
      await other.close();
    }
  });

  it('works offline: every request went to recap itself, the chart library included', () => {
    expect(foreign).toEqual([]);
    expect(requested.length).toBeGreaterThan(20);
    expect(requested.every((url) => new URL(url).origin === h.recap.url)).toBe(true);
    expect(requested.some((url) => url.includes('/recap/ui/vendor/uPlot'))).toBe(true);
  });

  it('logged no key the browser sent, nor the admin token', () => {
    expect(h.logs.lines.some((l) => l.includes('"msg":"request"'))).toBe(true);
    for (const secret of [ADMIN, A, B]) expect(h.logs.text).not.toContain(secret);
  });

  it('ran without a console error, a page error or a script from the store', () => {
    expect(problems).toEqual([]);
  });
});
