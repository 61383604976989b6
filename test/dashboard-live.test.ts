import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import { overBudgetHistory } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { waitFor } from './helpers/redis-process.js';

// Issue 38: the dashboard as people keep it open, in Debian's headless Chromium. recap here has an
// admin token and no `clients` (callers' own API keys are the tenants). The overview and a
// conversation refresh without a reload; a pass-through request and an upstream error appear, the
// error linking to its conversation; the listing is searched and filtered; a compacted request's
// view map matches the request recap was sent; at 390 and 768 px nothing scrolls sideways; a wrong
// admin token is told so; an ordinary login leaves nothing in the console.

const ADMIN = 'admin-token-live-0123456789abcdef';
const KEY = 'sk-live-user-1';
// A conversation id as long as clients make them: it must wrap, not widen the page.
const LONG_ID = `agent-session-${'9f3c2a7b'.repeat(24)}`;
// $1 input, $0.10 cached, $4 output per million tokens.
const PRICING = { input: 1, cached_input: 0.1, output: 4 };

let h: Harness;
let browser: TestBrowser | undefined;
let page: Page;
const consoleErrors: string[] = [];

async function chat(conversation: string, messages: unknown[]) {
  return rawRequest(h.recap.url, {
    target: '/v1/chat/completions',
    headers: { authorization: `Bearer ${KEY}`, 'x-conversation-id': conversation },
    body: { model: 'gpt-test-small', messages },
  });
}

const listed = async () => {
  const r = await rawRequest(h.recap.url, { target: '/recap/v1/conversations?limit=200', headers: { 'x-recap-admin-token': ADMIN } });
  return (JSON.parse(r.body) as { conversations: { id: string; requests: number; conversation: string }[] }).conversations;
};

async function logIn(value: string) {
  await page.goto(`${h.recap.url}/recap/ui`);
  await page.locator('#key').fill(value);
  await page.getByRole('button', { name: 'Log in' }).click();
}

const cardValue = (label: string) =>
  page
    .locator('.card', { has: page.locator('.label', { hasText: label }) })
    .locator('.value')
    .textContent();

/** Whether the page is wider than the window (it would scroll sideways). */
const overflows = () => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

beforeAll(async () => {
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [smallModel(), { match: 'gpt-test-priced', pricing: PRICING, compaction: { strategy: 'window' } }],
    extra: { background: { enabled: false }, server: { admin_token: ADMIN } },
  });
  expect((await chat('compacted-one', overBudgetHistory())).headers['x-recap-action']).toBe('compacted');
  expect((await chat(LONG_ID, [{ role: 'user', content: 'hello' }])).status).toBe(200);
  expect((await chat('short-chat', [{ role: 'user', content: 'hi' }])).status).toBe(200);
  await waitFor('the events written', async () => (await listed()).length === 3, 10_000);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  browser.context.setDefaultTimeout(15_000);
  // Every console error counts here, a failed load (a 401) included.
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (err) => consoleErrors.push(`page error: ${err.message}`));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('the dashboard, live', () => {
  it('tells a wrong admin token that it is not the admin token, and logs nothing in', async () => {
    await logIn('admin-token-live-0123456789abcdeX');
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: 'not recap’s admin token' }).waitFor();
    expect(await alert.textContent()).toContain('if you meant the admin token, it is wrong');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('logs in with an API key without a console error, saying what kind of credential it is and what it shows', async () => {
    consoleErrors.length = 0;
    await logIn(KEY);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.locator('#credential').textContent()).toContain('caller credential');
    expect(await page.locator('#credential').textContent()).toContain('made with that key only');
    expect(consoleErrors).toEqual([]);
    await page.getByRole('button', { name: 'Log out' }).click();
    await logIn(ADMIN);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await page.locator('#credential').textContent()).toContain('admin token: every tenant');
    expect(consoleErrors).toEqual([]);
  });

  it('refreshes the overview without a reload: a pass-through request and an upstream error appear, the error linking to its conversation', async () => {
    await page.getByRole('link', { name: '1h' }).click();
    await page.locator('.ranges a.active', { hasText: '1h' }).waitFor();
    expect(await cardValue('Requests')).toBe('3');
    // A mark on the window: a reload would lose it.
    await page.evaluate(() => Object.assign(window, { __stay: 1 }));
    h.fake.enqueue({ status: 200, body: JSON.stringify({ object: 'list', data: [] }), headers: { 'content-type': 'application/json' } }, { path: '/v1/models' });
    expect((await rawRequest(h.recap.url, { target: '/v1/models', headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    h.fake.enqueue({ status: 503, body: JSON.stringify({ error: { message: 'overloaded' } }), headers: { 'content-type': 'application/json' } });
    expect(
      (
        await chat('short-chat', [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          { role: 'user', content: 'again' },
        ])
      ).status,
    ).toBe(503);

    await page
      .locator('.card', { has: page.locator('.label', { hasText: 'Requests' }) })
      .locator('.value', { hasText: /^5$/ })
      .waitFor();
    expect(await page.evaluate(() => (window as unknown as { __stay?: number }).__stay)).toBe(1);
    expect(await page.locator('#updated').textContent()).toMatch(/^updated \d+ s ago/);
    const routes = await page.locator('table.routes tbody tr').allTextContents();
    expect(routes.find((r) => r.startsWith('models'))).toMatch(/^models1\s*0/);
    expect(await page.locator('table.models').textContent()).toContain('(pass-through)');
    const errorRow = page.locator('table.errors tbody tr');
    await expect.poll(() => errorRow.count()).toBe(1);
    const cells = await errorRow.locator('td').allTextContents();
    expect(cells.slice(1, 5)).toEqual(['503', 'from the upstream', 'gpt-test-small', 'chat']);
    await errorRow.getByRole('link', { name: 'open' }).click();
    await page.locator('h1', { hasText: 'short-chat' }).waitFor();
  });

  it('refreshes a conversation without a reload: a new request joins its history', async () => {
    const rows = page.locator('table.events tbody tr');
    const before = await rows.count();
    expect(
      (
        await chat('short-chat', [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          { role: 'user', content: 'and now?' },
        ])
      ).status,
    ).toBe(200);
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(before + 1);
    expect(await page.locator('h2', { hasText: /^Requests \(/ }).textContent()).toBe(`Requests (${before + 1})`);
  });

  it('searches conversations by part of their id and filters them by action, keeping the filters in the location', async () => {
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    const rows = page.locator('table.list tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    await page.locator('#search').fill('9F3C2A7B');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(LONG_ID);
    await page.locator('#search').fill('');
    await expect.poll(() => rows.count()).toBe(3);
    await page.locator('#filter-action').selectOption('compacted');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('compacted-one');
    expect(page.url()).toContain('action=compacted');
    await page.locator('#filter-action').selectOption('');
    await page.locator('#filter-model').fill('no-such-model');
    await page.getByText('No conversation matches').waitFor();
    await page.locator('#filter-model').fill('');
    await expect.poll(() => rows.count()).toBe(3);
    await page.locator('#sort').selectOption('requests');
    await expect.poll(async () => (await rows.first().textContent())?.includes('short-chat')).toBe(true);
  });

  it("maps a compacted request's messages to what recap did with each, as the request was sent", async () => {
    await page.getByRole('link', { name: 'compacted-one', exact: true }).click();
    await page.locator('#view-map').waitFor();
    const sent = overBudgetHistory();
    const described = JSON.parse((await rawRequest(h.recap.url, { target: '/recap/v1/conversations/compacted-one', headers: { authorization: `Bearer ${KEY}` } })).body) as {
      checkpoints: { covered_messages: number; kept_messages: number[] }[];
    };
    const { covered_messages: covered, kept_messages: kept } = described.checkpoints[0]!;
    const rows = await page.locator('table.view-map tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    // The system message pinned, the summarized span one row, the rest one row per message, to the last.
    expect(rows[0]).toEqual(['#0', 'system', expect.any(String), expect.any(String), 'pinned']);
    const summarized = rows.filter((r) => r[4] === 'summarized');
    expect(summarized).toHaveLength(1);
    const spanned = covered - kept.length;
    expect(summarized[0]![0]).toMatch(new RegExp(`\\(${spanned}\\)$`));
    expect(rows.at(-1)).toEqual([`#${sent.length - 1}`, 'user', expect.any(String), expect.any(String), 'kept']);
    const shown = rows.reduce((n, r) => n + (r[0]!.includes('–') ? Number(/\((\d+)\)/.exec(r[0]!)![1]) : 1), 0);
    expect(shown).toBe(sent.length);
    expect(await page.locator('#view-map .note').first().textContent()).toContain(`${sent.length} messages`);
    expect(await page.locator('#view-map .view-bar .block').count()).toBe(rows.length);
  });

  it('fits a 390 px phone and a 768 px tablet: no horizontal scroll, the long id wraps', async () => {
    for (const width of [390, 768]) {
      await page.setViewportSize({ width, height: 844 });
      for (const view of ['#/overview?range=1h', '#/conversations']) {
        await page.goto(`${h.recap.url}/recap/ui${view}`);
        await page.locator('main section').waitFor();
        await page.locator('main table').first().waitFor();
        expect(await overflows(), `${view} at ${width} px`).toBe(false);
      }
      await page.getByRole('link', { name: LONG_ID }).click();
      await page.locator('#conversation-chart canvas').first().waitFor();
      expect(await overflows(), `the long conversation at ${width} px`).toBe(false);
      await page.goto(`${h.recap.url}/recap/ui#/conversations`);
      await page.getByRole('link', { name: 'compacted-one' }).click();
      await page.locator('#view-map').waitFor();
      await page.locator('#conversation-chart canvas').first().waitFor();
      expect(await overflows(), `the view map at ${width} px`).toBe(false);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('asks nothing while the tab is hidden, and refreshes when it is shown again', async () => {
    await page.goto(`${h.recap.url}/recap/ui#/overview?range=1h`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const asked: string[] = [];
    const note = (r: { url(): string }) => r.url().includes('/recap/v1/overview') && asked.push(r.url());
    page.on('request', note);
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await new Promise((r) => setTimeout(r, 7_000));
    expect(asked).toEqual([]);
    await page.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await expect.poll(() => asked.length).toBeGreaterThan(0);
    page.off('request', note);
  }, 30_000);

  it('shows money where prices are configured: cost, cost saved and the cached share, on the overview and the conversation', async () => {
    h.fake.setOptions({ promptTokens: () => 10_000, cachedTokens: () => 8_000 });
    const r = await rawRequest(h.recap.url, {
      target: '/v1/chat/completions',
      headers: { authorization: `Bearer ${KEY}`, 'x-conversation-id': 'priced-chat' },
      body: { model: 'gpt-test-priced', messages: [{ role: 'user', content: 'what does this cost?' }] },
    });
    expect(r.status).toBe(200);
    type Totals = { total: { cost: number; cost_saved: number; cached_tokens: number; tokens_out: number } };
    const overview = async () => JSON.parse((await rawRequest(h.recap.url, { target: '/recap/v1/overview?range=1h', headers: { 'x-recap-admin-token': ADMIN } })).body) as Totals;
    await waitFor('the priced request counted', async () => (await overview()).total.cost > 0, 10_000);
    const { total } = await overview();
    const money = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
    await page.goto(`${h.recap.url}/recap/ui#/overview?range=1h`);
    await page.locator('.card .label', { hasText: /^Cost$/ }).waitFor();
    expect(await cardValue('Cost')).toBe(money.format(total.cost));
    expect(
      await page
        .locator('.card', { has: page.locator('.label', { hasText: /^Cost$/ }) })
        .locator('.note')
        .textContent(),
    ).toBe(`saved ${money.format(total.cost_saved)}`);
    expect(await cardValue('Cached')).toBe(`${Math.round((100 * total.cached_tokens) / total.tokens_out)}%`);
    expect(await page.locator('table.models thead').textContent()).toContain('Cost saved');
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.getByRole('link', { name: 'priced-chat', exact: true }).click();
    await page.locator('.card .label', { hasText: /^Cost$/ }).waitFor();
    expect(await cardValue('Cost')).toBe(money.format(total.cost));
    expect(await page.locator('table.events thead').textContent()).toContain('Cost');
  });

  it('left no error in the console but the 404s of conversations that have no checkpoint', () => {
    // The page asks a conversation's checkpoints, and recap's API answers 404 when it has none (its
    // contract); the page shows "No checkpoint" for it. Nothing else may show up.
    expect(consoleErrors.filter((m) => m !== 'Failed to load resource: the server responded with a status of 404 (Not Found)').join('\n')).toBe('');
  });
});
