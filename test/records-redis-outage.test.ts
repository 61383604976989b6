import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prose } from './helpers/conversation.js';
import { type Harness, SUMMARIZER, smallModel, startHarness } from './helpers/harness.js';
import { startRedisServer, type ThrowawayRedis } from './helpers/redis-server.js';
import { settlesBefore } from './helpers/settles-before.js';

// Rule 8: with Redis gone, requests still succeed while it is still gone (the first on the
// decision noted before, the others compacted without records), promptly: each store call is
// bounded by store.command_timeout_ms, far below the sentinel below. When it returns, records
// work again without restarting recap, and nothing queued during the outage is replayed.

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
// Ten times store.command_timeout_ms (300 ms) per store call a request makes without its record:
// a request held until Redis came back would never be served; one held by a retry loop, past this.
const SENTINEL_MS = 10 * 300 * 2;

let redis: ThrowawayRedis;
let h: Harness;
beforeAll(async () => {
  redis = await startRedisServer();
  h = await startHarness({
    storeUrl: redis.url,
    fake: { summarizerModel: SUMMARIZER },
    extra: { background: { enabled: false } },
    models: [smallModel()],
  });
});
afterAll(async () => {
  await h.close();
  await redis.stop();
});

describe('Redis outage', () => {
  it('keeps compacting every request while Redis is down and resumes reuse when it is back', async () => {
    const client = h.client({ conversation: 'outage' });
    const messages: Msg[] = [{ role: 'system', content: 'You help the ops team.' }];
    const turn = async () => {
      const { data, response } = await client.chat.completions.create({ model: 'gpt-test-small', messages }).withResponse();
      messages.push({ role: 'assistant', content: data.choices[0]!.message.content ?? '' });
      return { action: response.headers.get('x-recap-action') };
    };
    let t = 0;
    let action: string | null = null;
    while (action !== 'compacted' && t < 30) {
      messages.push({ role: 'user', content: prose(++t) });
      action = (await turn()).action;
    }
    expect(action).toBe('compacted');
    // The compacting request's work after its reply (its record written, its items decided again
    // against it and noted: decide-after-write.ts) is done once its log line is out.
    await waitUntil(async () => h.logs.lines.filter((l) => l.includes('"msg":"request"')).length >= t);

    await redis.kill();
    // Redis stays dead until the restart below. The next request goes upstream on the decision its
    // conversation's last request noted, as it would with Redis up (reuse-first.ts), promptly; its
    // record read, issued as it arrived, fails and takes that note back.
    messages.push({ role: 'user', content: prose(++t) });
    const before = h.fake.summarizerRequests().length;
    const onNote = turn();
    expect(await settlesBefore(onNote, SENTINEL_MS)).toBe(true);
    expect((await onNote).action).toBe('reused');
    expect(h.fake.summarizerRequests()).toHaveLength(before);
    await waitUntil(async () => (await storeErrors('load')) >= 1);
    // Without the record, every request after it (each over the trigger now) is compacted again
    // inline: never failed, never degraded, never left hanging.
    for (let i = 0; i < 4; i++) {
      messages.push({ role: 'user', content: prose(++t) });
      const summaries = h.fake.summarizerRequests().length;
      const served = turn();
      expect(await settlesBefore(served, SENTINEL_MS)).toBe(true);
      expect((await served).action).toBe('compacted');
      // Made afresh for this request: no record to reuse a summary from, no queue to replay it from.
      expect(h.fake.summarizerRequests()).toHaveLength(summaries + 1);
    }
    const ready = await fetch(`${h.recap.url}/readyz`);
    expect(ready.status).toBe(503);

    await redis.restart();
    await waitUntil(async () => (await fetch(`${h.recap.url}/readyz`)).status === 200);
    messages.push({ role: 'user', content: prose(++t) });
    const first = await turn();
    messages.push({ role: 'user', content: prose(++t) });
    const second = await turn();
    expect(first.action).toBe('compacted');
    expect(second.action).toBe('reused');
  });
});

/** How many store operations `op` failed (recap_store_errors_total). */
async function storeErrors(op: string): Promise<number> {
  const { values } = await h.recap.runtime.metrics.storeErrors.get();
  return values.find((v) => v.labels.op === op)?.value ?? 0;
}

async function waitUntil(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}
