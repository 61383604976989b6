// The dashboard's screenshots in docs/ (README and docs/dashboard.md show them): recap on the fake upstream, the traffic
// the browser test is shown (test/helpers/dashboard-traffic.ts) plus a pass-through request and an
// upstream error, and each page in Debian's headless Chromium as the admin token sees it, at
// desktop width and at a phone's (390 px: dashboard-phone-*.png).
// Run: npm run screenshots [-- DIR]   (DIR defaults to docs; no Redis needed, the in-memory store)
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchBrowser } from '../test/helpers/browser.js';
import { ADMIN_TOKEN, ALPHA_KEY, AGENT, dashboardConfig, MODELS, REQUESTS, sendDashboardTraffic } from '../test/helpers/dashboard-traffic.js';
import { SUMMARIZER, startHarness } from '../test/helpers/harness.js';
import { rawRequest } from '../test/helpers/plain-request.js';

const TICKET = 'ticket-4411';
const dir = resolve(process.argv[2] ?? 'docs');

async function listedRequests(url: string): Promise<number> {
  const res = await fetch(`${url}/recap/v1/conversations?limit=200`, { headers: { 'x-recap-admin-token': ADMIN_TOKEN } });
  const { conversations } = (await res.json()) as { conversations: { requests: number }[] };
  return conversations.reduce((n, c) => n + c.requests, 0);
}

async function main() {
  mkdirSync(dir, { recursive: true });
  const h = await startHarness({ fake: { summarizerModel: SUMMARIZER }, ...dashboardConfig() });
  try {
    await sendDashboardTraffic(h.recap.url, h.fake, { ticket: TICKET, decision: 'We decided to ship the invoice fix on Friday, after the ORD-4411 rollback.' });
    // A pass-through request, and a turn the upstream refuses: the overview's routes and error list.
    const headers = { authorization: `Bearer ${ALPHA_KEY}` };
    h.fake.enqueue({ status: 200, body: JSON.stringify({ object: 'list', data: [] }), headers: { 'content-type': 'application/json' } }, { path: '/v1/models' });
    await rawRequest(h.recap.url, { target: '/v1/models', headers });
    h.fake.enqueue({ status: 429, body: JSON.stringify({ error: { message: 'rate limited', type: 'requests' } }), headers: { 'content-type': 'application/json' } });
    await rawRequest(h.recap.url, {
      target: '/v1/chat/completions',
      headers: { ...headers, 'x-conversation-id': 'checkout-bot' },
      body: { model: MODELS.compacting, messages: [{ role: 'user', content: 'Is the checkout up?' }] },
    });
    // Events are written just after each response.
    for (let i = 0; (await listedRequests(h.recap.url)) < REQUESTS + 1; i++) {
      if (i === 100) throw new Error('the events were not all written');
      await new Promise((r) => setTimeout(r, 50));
    }
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      page.setDefaultTimeout(10_000);
      const shot = async (name: string) => {
        const path = join(dir, `dashboard-${name}.png`);
        await page.screenshot({ path, fullPage: true });
        process.stdout.write(`${path}\n`);
      };
      for (const [prefix, width] of [
        ['', 1280],
        ['phone-', 390],
      ] as const) {
        await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
        await page.goto(`${h.recap.url}/recap/ui`);
        await page.evaluate(() => sessionStorage.clear());
        await page.reload();
        await page.locator('#key').waitFor();
        await shot(`${prefix}login`);
        await page.locator('#key').fill(ADMIN_TOKEN);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.getByRole('heading', { name: 'Overview' }).waitFor();
        await page.getByRole('link', { name: '1h' }).click();
        await page.locator('.ranges a.active', { hasText: '1h' }).waitFor();
        await page.locator('#overview-chart canvas').first().waitFor();
        await shot(`${prefix}overview`);
        await page.getByRole('link', { name: 'Conversations', exact: true }).click();
        await page.locator('table.list tbody tr').first().waitFor();
        await shot(`${prefix}conversations`);
        await page.getByRole('link', { name: TICKET, exact: true }).click();
        await page.locator('#conversation-chart canvas').first().waitFor();
        await page.locator('#view-map').waitFor();
        await shot(`${prefix}conversation`);
        // An agent's task: old tool results cleared, the chart on a log axis.
        await page.getByRole('link', { name: '← Conversations' }).click();
        await page.getByRole('link', { name: AGENT, exact: true }).click();
        await page.locator('#conversation-chart canvas').first().waitFor();
        await shot(`${prefix}agent`);
        await page.getByRole('button', { name: 'Log out' }).click();
      }
    } finally {
      await browser.close();
    }
  } finally {
    await h.close();
  }
}

await main();
