import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../../src/dev/fake-upstream.js';
import { testConfig } from '../helpers/harness.js';
import { rawRequest } from '../helpers/plain-request.js';
import { processStats } from '../helpers/procfs.js';
import { type RecapProcess, startRecapProcess } from '../helpers/recap-process.js';

// Issue 27 item 4: SIGKILL a worker, then its replacement before it listened, and the primary used
// to log "worker exited before it listened; stopping", terminate the healthy worker and exit 1.
// A worker that dies is now replaced with a backoff while the others keep serving; the server
// stops only when no worker could start for server.worker_give_up_ms.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

type Entry = { msg?: string; worker?: number };
const entries = (p: RecapProcess) => p.logs.map((l) => JSON.parse(l) as Entry);

const workersOf = (pid: number) =>
  processStats()
    .filter((p) => p.ppid === pid && p.state !== 'Z')
    .map((p) => p.pid);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls the process table for a worker of `primary` that is none of `known`, and returns its PID. */
async function newWorker(primary: number, known: readonly number[]): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const fresh = workersOf(primary).find((pid) => !known.includes(pid));
    if (fresh !== undefined) return fresh;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('no replacement worker was forked');
}

describe('a worker crash, then a crash of its replacement during its boot', () => {
  let fake: FakeUpstream;
  let recap: RecapProcess;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    recap = await startRecapProcess(testConfig(fake, { storeUrl: REDIS }), {}, { args: ['--workers', '2'], startTimeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await recap?.stop();
    await fake?.close();
  });

  const hello = () =>
    rawRequest(recap.url, {
      target: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-boot-crash' },
      body: { model: 'gpt-test-workers', messages: [{ role: 'user', content: 'hello' }] },
    });

  it('keeps serving on the healthy worker, and a replacement comes up later', { timeout: 60_000 }, async () => {
    const [crashed, healthy] = workersOf(recap.pid);
    expect(healthy).toBeDefined();
    process.kill(crashed!, 'SIGKILL');
    // Killed as soon as it is forked: long before a worker can load recap and listen.
    const replacement = await newWorker(recap.pid, [crashed!, healthy!]);
    process.kill(replacement, 'SIGKILL');
    await expect.poll(() => entries(recap).filter((e) => e.msg?.startsWith('worker exited before it listened')).length, { timeout: 30_000 }).toBe(1);

    // The healthy worker serves on, and the primary keeps forking.
    for (let i = 0; i < 4; i++) expect((await hello()).status).toBe(200);
    expect(alive(healthy!)).toBe(true);
    expect(alive(recap.pid)).toBe(true);
    await expect.poll(() => entries(recap).some((e) => e.msg === 'worker listening'), { timeout: 30_000 }).toBe(true);
    const now = workersOf(recap.pid);
    expect(now).toHaveLength(2);
    expect(now).toContain(healthy);
    expect(entries(recap).some((e) => e.msg === 'shutting down')).toBe(false);
    for (let i = 0; i < 4; i++) expect((await hello()).status).toBe(200);
  });
});

describe('workers that can never start', () => {
  let busy: Server;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '0.0.0.0', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('stop the server (exit 1) once none could start for server.worker_give_up_ms', { timeout: 60_000 }, async () => {
    const fake = await startFakeUpstream();
    try {
      const port = (busy.address() as { port: number }).port;
      const config = testConfig(fake, { storeUrl: REDIS, extra: { server: { worker_give_up_ms: 1_500 } } });
      const start = startRecapProcess(config, {}, { args: ['--workers', '2', '--port', String(port)], startTimeoutMs: 40_000 });
      await expect(start).rejects.toThrow(/recap exited with 1/);
    } finally {
      await fake.close();
    }
  });
});
