import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../../src/dev/fake-upstream.js';
import { overBudgetHistory } from '../helpers/conversation.js';
import { SUMMARIZER, smallModel, testConfig } from '../helpers/harness.js';
import { rawRequest } from '../helpers/plain-request.js';
import { type RecapProcess, startRecapProcesses, writeConfigFile } from '../helpers/recap-process.js';

// Issue 27 item 2: with background.tenant_tokens_per_window about one summary, 20 concurrent
// over-budget requests of one tenant on distinct conversations made 20 summarizer calls, on one
// process and on two: every request checked the allowance before any call was counted. A call
// now reserves its cost in Redis before it is made (one script, whichever replica asks), so a
// burst spends at most the allowance plus one call.

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// About one summary of overBudgetHistory() (~4,000 tokens in and out).
const ALLOWANCE = 4_000;
const BURST = 20;

const summarizerTokens = async (p: RecapProcess) => {
  const text = await (await fetch(`${p.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('recap_summarizer_tokens_total{direction="total"}'));
  return line ? Number(line.split(' ').at(-1)) : 0;
};

describe('a burst of over-budget requests of one tenant on two processes', () => {
  let fake: FakeUpstream;
  let one: RecapProcess;
  let two: RecapProcess;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    // Slow enough that every request of the burst reaches its summarizer call before the first one answers.
    fake = await startFakeUpstream({ summarizerModel: SUMMARIZER, summarizerLatencyMs: 500 });
    const config = testConfig(fake, { storeUrl: REDIS, models: [smallModel()], extra: { background: { enabled: false, tenant_tokens_per_window: ALLOWANCE } } });
    const file = await writeConfigFile(config);
    cleanup = file.cleanup;
    [one, two] = await startRecapProcesses([file.file, file.file]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await fake?.close();
    await cleanup?.();
  });

  it('spends at most the allowance plus one call', { timeout: 60_000 }, async () => {
    const replies = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        rawRequest((i % 2 ? one : two).url, {
          target: '/v1/chat/completions',
          headers: { authorization: 'Bearer sk-allowance-burst', 'x-conversation-id': `burst-${i}` },
          body: { model: 'gpt-test-small', messages: overBudgetHistory(` conversation ${i}`) },
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(BURST).fill(200));
    // Every request was compacted: by a summary while the allowance lasted, by `window` after it.
    expect(replies.every((r) => r.headers['x-recap-action'] === 'compacted')).toBe(true);

    const calls = fake.summarizerRequests().length;
    expect(calls).toBeGreaterThan(0);
    const spent = (await summarizerTokens(one)) + (await summarizerTokens(two));
    const perCall = spent / calls;
    // Every call but the last started below the allowance.
    expect(spent - perCall).toBeLessThan(ALLOWANCE);
    expect(spent).toBeLessThanOrEqual(ALLOWANCE + perCall);
  });
});
