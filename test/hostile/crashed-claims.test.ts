import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../../src/dev/fake-upstream.js';
import { overBudgetHistory } from '../helpers/conversation.js';
import { SUMMARIZER, smallModel, testConfig } from '../helpers/harness.js';
import { rawRequest } from '../helpers/plain-request.js';
import { processOfLocalPort, processStats } from '../helpers/procfs.js';
import { type RecapProcess, startRecapProcess } from '../helpers/recap-process.js';
import { dumpRedis } from '../helpers/redis-dump.js';

// Issue 27 item 3: a worker killed during its summarizer call leaves its compaction claim in
// Redis. The claim used to live for the summarizer's timeout plus 5 s (here 125 s), and every
// request of the conversation meanwhile waited server.compaction_wait_ms and degraded. A claim is
// now a lease its holder renews while it works (src/pipeline/lease.ts): once nobody renews it, it
// lapses within seconds and the next request compacts.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let fake: FakeUpstream;
let recap: RecapProcess;
let prefix: string;
beforeAll(async () => {
  fake = await startFakeUpstream({ summarizerModel: SUMMARIZER });
  const config = testConfig(fake, {
    storeUrl: REDIS,
    models: [smallModel({ summarizer: { model: SUMMARIZER, timeout_ms: 120_000 } })],
    extra: { background: { enabled: false } },
  });
  prefix = config.store.key_prefix;
  recap = await startRecapProcess(config, {}, { args: ['--workers', '2'], startTimeoutMs: 60_000 });
}, 90_000);
afterAll(async () => {
  await recap?.stop();
  await fake?.close();
});

const workers = () =>
  processStats()
    .filter((p) => p.ppid === recap.pid && p.state !== 'Z')
    .map((p) => p.pid);

const send = () =>
  rawRequest(recap.url, {
    target: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-crashed-claims', 'x-conversation-id': 'crashed-claim' },
    body: { model: 'gpt-test-small', messages: overBudgetHistory() },
  });

/** The claims held in Redis for the conversation (the lock table's `h:<id>` fields). */
async function claimsInRedis(): Promise<number> {
  const { keys, text } = await dumpRedis(REDIS, prefix);
  const locks = keys.find((k) => k.endsWith(':locks'));
  if (!locks) return 0;
  const line = text.split('\n').find((l) => l.startsWith(`${locks} `))!;
  return Object.keys(JSON.parse(line.slice(locks.length + 1)) as object).filter((f) => f.startsWith('h:')).length;
}

describe('a worker killed during its summarizer call', () => {
  it('leaves a claim that lapses within seconds, and the next request compacts', { timeout: 60_000 }, async () => {
    // The first summarizer call never answers: its worker is killed while it waits.
    fake.enqueue({ delayMs: 600_000 }, { model: SUMMARIZER });
    const first = send().catch((err: unknown) => err);
    await expect.poll(() => fake.summarizerRequests().length, { timeout: 20_000 }).toBe(1);
    const caller = processOfLocalPort(fake.summarizerRequests()[0]!.remotePort!, workers());
    expect(caller).toBeDefined();
    expect(await claimsInRedis()).toBe(1);
    process.kill(caller!, 'SIGKILL');
    expect(await first).toBeInstanceOf(Error);

    // Nobody renews the dead worker's claim: it is gone long before the 125 s it used to hold.
    await expect.poll(claimsInRedis, { timeout: 30_000, interval: 200 }).toBe(0);
    // The next request (on the other worker or the dead one's replacement) makes the summary itself.
    const next = await send();
    expect(next.status).toBe(200);
    expect(next.headers['x-recap-action']).toBe('compacted');
    expect(fake.summarizerRequests()).toHaveLength(2);
  });
});
