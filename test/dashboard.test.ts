import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../src/messages/types.js';
import { type TestBrowser, launchBrowser } from './helpers/browser.js';
import { prose } from './helpers/conversation.js';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 29: the dashboard at /recap/ui, in a real browser (Debian's headless Chromium). The admin
// token sees every tenant, a compacted conversation's chart and summary, and forgets it; a client
// key sees its own tenant only; without a key there is the login form and the APIs answer 401.
// Summaries are client-derived text: markup in them stays text. With RECAP_SCREENSHOTS=DIR the
// pages are saved there as PNG (README's come from `RECAP_SCREENSHOTS=docs`).

const A = 'ck-alpha-5e7a9b1d3c2f4a6c8e0b1d3f5a7c9e2b';
const B = 'ck-bravo-1f9d7e5c3a8b6e4c2a0f9d7b5e3c1a8f';
const ADMIN = 'admin-token-ui-0123456789abcdef';
const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
// A conversation id is the client's text too.
const TICKET = 'deploy <b>ORD-4411</b>';
const SHOTS = process.env.RECAP_SCREENSHOTS;

let h: Harness;
let browser: TestBrowser;
let page: Page;
const problems: string[] = [];

async function chat(key: string, conversation: string, messages: ChatMessage[], model = 'gpt-test-small') {
  const r = await rawRequest(h.recap.url, {
    target: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'x-conversation-id': conversation },
    body: { model, messages },
  });
  expect(r.status).toBe(200);
  return JSON.parse(r.body).choices[0].message.content as string;
}

/** A conversation of `turns` turns, one request per turn, each reply appended. */
async function converse(key: string, conversation: string, turns: number, model?: string, extra: (t: number) => string = () => '') {
  const messages: ChatMessage[] = [{ role: 'system', content: 'You help the ops team.' }];
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: 'user', content: `${prose(t)} ${extra(t)}` });
    messages.push({ role: 'assistant', content: await chat(key, conversation, messages, model) });
  }
}

async function listed(key: Record<string, string>): Promise<{ id: string; requests: number }[]> {
  const r = await rawRequest(h.recap.url, { target: '/recap/v1/conversations?limit=200', headers: key });
  return JSON.parse(r.body).conversations;
}

async function shot(name: string) {
  if (!SHOTS) return;
  const dir = resolve(SHOTS);
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `dashboard-${name}.png`), fullPage: true });
}

async function logIn(key: string) {
  await page.goto(`${h.recap.url}/recap/ui`);
  await page.locator('#key').fill(key);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [smallModel(), { ...smallModel({ mode: 'audit' }), match: 'gpt-test-audit' }],
    extra: {
      background: { enabled: false },
      server: { admin_token: ADMIN },
      clients: [
        { name: 'alpha', key: A },
        { name: 'bravo', key: B },
      ],
    },
  });
  // Alpha: a conversation that compacts (markup in what it summarizes), one audited; bravo: a short one.
  await converse(A, TICKET, 26, 'gpt-test-small', (t) => (t === 3 ? `We decided to ship ${XSS} on Friday.` : ''));
  await converse(A, 'audit-trial', 26, 'gpt-test-audit');
  await converse(B, 'bravo-chat', 3);
  await waitFor('every event written', async () => (await listed({ 'x-recap-admin-token': ADMIN })).reduce((n, c) => n + c.requests, 0) === 55, 10_000);
  browser = await launchBrowser();
  page = await browser.context.newPage();
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
    const statuses = await page.evaluate(async () =>
      Promise.all(['/recap/v1/conversations', '/recap/v1/overview', '/recap/v1/whoami'].map(async (path) => (await fetch(path)).status)),
    );
    expect(statuses).toEqual([401, 401, 401]);
    await shot('login');
    await page.locator('#key').fill('ck-not-a-key-00000000000000000000000000000');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'does not accept' }).waitFor();
  });

  it('logs in with the admin token: the overview of every tenant, audited savings included', async () => {
    await logIn(ADMIN);
    expect(await page.locator('#who').textContent()).toContain('admin');
    // The last hour, by the minute: the requests above made a few seconds ago.
    await page.getByRole('link', { name: '1h' }).click();
    await page.locator('.ranges a.active', { hasText: '1h' }).waitFor();
    await page.locator('#overview-chart canvas').first().waitFor();
    // Per model: the chart redraws for the one picked.
    await page.locator('#chart-model').selectOption('gpt-test-audit');
    await page.locator('#overview-chart canvas').first().waitFor();
    expect(await page.locator('#overview-chart .u-legend').textContent()).toContain('projected saved');
    await page.locator('#chart-model').selectOption('');
    const cards = await page.locator('.cards').textContent();
    expect(cards).toContain('Tokens saved');
    expect(cards).toContain('Projected savings');
    const models = await page.locator('table.models').textContent();
    expect(models).toContain('gpt-test-small');
    expect(models).toContain('gpt-test-audit');
    expect(models).toContain('audit');
    await shot('overview');
  });

  it('lists every tenant’s conversations, each named by its client', async () => {
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.locator('table.list tbody tr').first().waitFor();
    const rows = await page.locator('table.list tbody tr').allTextContents();
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.includes('bravo-chat'))).toContain('bravo');
    expect(rows.find((r) => r.includes('audit-trial'))).toContain('projected');
    // The id is shown as the text the client sent, markup and all.
    expect(rows.some((r) => r.includes(TICKET))).toBe(true);
    expect(await page.locator('table.list b').count()).toBe(0);
    await shot('conversations');
  });

  it("shows a compacted conversation's chart, summary, ledger and checkpoints, its markup as text", async () => {
    await page.getByRole('link', { name: TICKET }).click();
    await page.locator('#conversation-chart canvas').first().waitFor();
    expect(await page.locator('h1').textContent()).toBe(TICKET);
    const summary = await page.locator('#summary-text').textContent();
    expect(summary).toContain('Friday');
    expect(summary).toContain(XSS);
    expect(await page.locator('#summary-text *').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('#ledger li').count()).toBeGreaterThan(0);
    expect(await page.locator('table.checkpoints tbody tr').count()).toBeGreaterThan(0);
    // The chart's legend names the compaction markers.
    expect(await page.locator('#conversation-chart .u-legend').textContent()).toContain('summary');
    expect(await page.locator('table.events').textContent()).toContain('compacted');
    await shot('conversation');
  });

  it('forgets the conversation: gone from the list and from the API', async () => {
    await page.locator('#forget').click();
    await page.getByRole('heading', { name: 'Conversations' }).waitFor();
    await page.locator('table.list tbody tr').first().waitFor();
    const rows = await page.locator('table.list tbody tr').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows.some((r) => r.includes(TICKET))).toBe(false);
    const events = await rawRequest(h.recap.url, { target: `/recap/v1/conversations/${encodeURIComponent(TICKET)}/events`, headers: { authorization: `Bearer ${A}` } });
    expect(events.status).toBe(404);
  });

  it('shows a client key its own tenant only, and logs out', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('#key').waitFor();
    await logIn(B);
    expect(await page.locator('#who').textContent()).toBe('client bravo');
    expect(await page.locator('table.models').textContent()).not.toContain('gpt-test-audit');
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.locator('table.list tbody tr').first().waitFor();
    const rows = await page.locator('table.list tbody tr').allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('bravo-chat');
    expect(await page.locator('table.list thead').textContent()).not.toContain('Tenant');
    // Another tenant's conversation, asked for by hand, is not found.
    await page.goto(`${h.recap.url}/recap/ui#/conversation?ref=${'A'.repeat(43)}`);
    await page.getByRole('alert').filter({ hasText: 'Not found' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(1);
    expect((await browser.context.cookies()).length).toBe(0);
  });

  it('ran without a console error, a page error or a script from the store', () => {
    expect(problems).toEqual([]);
  });
});
