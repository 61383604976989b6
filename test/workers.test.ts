import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../src/dev/fake-upstream.js';
import { overBudgetHistory } from './helpers/conversation.js';
import { SUMMARIZER, smallModel, testConfig } from './helpers/harness.js';
import { processStats } from './helpers/procfs.js';
import { type RecapProcess, startRecapProcess } from './helpers/recap-process.js';

// `recap serve --workers 2`: two processes on one port, one /metrics for both, one SIGTERM.

const REQUESTS = 24;

/** A request on a connection of its own, so that the cluster hands each to a worker afresh. */
function send(url: string, method: string, path: string, body?: string, extra: Record<string, string> = {}): Promise<{ status: number; text: string; action?: string }> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: 'Bearer sk-workers', 'content-type': 'application/json', ...extra };
    const req = request(`${url}${path}`, { method, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, action: res.headers['x-recap-action'] as string | undefined }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** The PIDs whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  return processStats()
    .filter((p) => p.ppid === pid)
    .map((p) => p.pid);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function chatRequestsCounted(metrics: string): number {
  return metrics
    .split('\n')
    .filter((l) => l.startsWith('recap_requests_total{') && l.includes('route="/v1/chat/completions"') && l.includes('status="200"'))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

let fake: FakeUpstream;
let recap: RecapProcess;
beforeAll(async () => {
  fake = await startFakeUpstream();
  const config = testConfig(fake, { storeUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  recap = await startRecapProcess(config, {}, { args: ['--workers', '2'] });
}, 60_000);
afterAll(async () => {
  await recap?.stop();
  await fake?.close();
});

/** The chat requests recap has logged so far, with the worker that served each. */
function served(): { worker?: number }[] {
  return recap.logs.map((l) => JSON.parse(l) as { msg?: string; route?: string; worker?: number }).filter((e) => e.msg === 'request' && e.route === '/v1/chat/completions');
}

/** REQUESTS chat requests, each on a connection of its own, once all are logged. */
async function serveRequests(): Promise<void> {
  const before = served().length;
  const body = JSON.stringify({ model: 'gpt-test-workers', messages: [{ role: 'user', content: 'hello' }] });
  for (let i = 0; i < REQUESTS; i++) expect((await send(recap.url, 'POST', '/v1/chat/completions', body)).status).toBe(200);
  // Log lines are written asynchronously.
  await expect.poll(() => served().length).toBe(before + REQUESTS);
}

describe('recap serve --workers 2', () => {
  it('serves from both workers on one port', async () => {
    await serveRequests();
    expect(new Set(served().map((e) => e.worker))).toEqual(new Set([1, 2]));
    expect(childrenOf(recap.pid)).toHaveLength(2);
  });

  it('answers /metrics with the sum over both workers, whichever worker the scrape lands on', async () => {
    await serveRequests();
    const perWorker = new Map<number, number>();
    for (const e of served()) if (e.worker !== undefined) perWorker.set(e.worker, (perWorker.get(e.worker) ?? 0) + 1);
    const total = served().length;
    // Neither worker alone served them all, so only an aggregate can count them all.
    expect(Math.max(...perWorker.values())).toBeLessThan(total);
    for (let i = 0; i < 6; i++) {
      const scrape = await send(recap.url, 'GET', '/metrics');
      expect(scrape.status).toBe(200);
      expect(chatRequestsCounted(scrape.text)).toBe(total);
    }
  });

  it('stops both workers and the primary on SIGTERM, with exit code 0', async () => {
    const workers = childrenOf(recap.pid);
    expect(workers).toHaveLength(2);
    expect(await recap.stop('SIGTERM')).toBe(0);
    await expect.poll(() => workers.filter(alive), { timeout: 5_000 }).toEqual([]);
    const shutdown = recap.logs.map((l) => JSON.parse(l) as { msg?: string; worker?: number }).filter((e) => e.msg === 'shutting down');
    expect(new Set(shutdown.map((e) => e.worker))).toEqual(new Set([undefined, 1, 2]));
  });
});

describe('recap serve --workers 2 without a configured secret', () => {
  it('hands every worker the one secret the primary generated, so each finds the records of the other', async () => {
    const upstream = await startFakeUpstream({ summarizerModel: SUMMARIZER });
    const config = testConfig(upstream, { storeUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', models: [smallModel()], extra: { background: { enabled: false } } });
    delete (config.server as { secret?: string }).secret;
    const cluster = await startRecapProcess(config, { RECAP_SECRET: '' }, { args: ['--workers', '2'] });
    try {
      const warnings = cluster.logs.filter((l) => l.includes('generated a random one'));
      expect(warnings.map((l) => (JSON.parse(l) as { worker?: number }).worker)).toEqual([undefined]);
      const body = JSON.stringify({ model: 'gpt-test-small', messages: overBudgetHistory() });
      const headers = { 'x-conversation-id': 'two-workers-one-secret' };
      expect((await send(cluster.url, 'POST', '/v1/chat/completions', body, headers)).action).toBe('compacted');
      // Records are keyed by the tenant's HMAC: a worker with a secret of its own would not find
      // the checkpoint the other one wrote, and would compact again.
      const again = [];
      for (let i = 0; i < 6; i++) again.push((await send(cluster.url, 'POST', '/v1/chat/completions', body, headers)).action);
      expect(again).toEqual(Array(6).fill('reused'));
      const workersOf = () =>
        new Set(
          cluster.logs
            .map((l) => JSON.parse(l) as { msg?: string; worker?: number })
            .filter((e) => e.msg === 'request')
            .map((e) => e.worker),
        );
      await expect.poll(() => workersOf().size).toBe(2);
    } finally {
      expect(await cluster.stop()).toBe(0);
      await upstream.close();
    }
  });
});
