import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, SUMMARIZER, smallModel } from './helpers/harness.js';
import { rawRequest } from './helpers/plain-request.js';
import { waitFor } from './helpers/redis-process.js';
import { startRedisServer, type ThrowawayRedis } from './helpers/redis-server.js';

// Issue 29: writing an event never delays or fails its response. With Redis frozen (every event
// write hangs until the store's command timeout) and then gone, requests are answered whole as
// before; the events that could not be written are dropped and counted, the queue stays bounded.

const QUEUE_MAX = 3;
let redis: ThrowawayRedis;
let h: Harness;
beforeAll(async () => {
  redis = await startRedisServer();
  h = await startHarness({
    fake: { summarizerModel: SUMMARIZER },
    models: [smallModel()],
    // Long enough that a frozen Redis holds every write for as long as the requests below take.
    extra: { background: { enabled: false }, events: { queue_max: QUEUE_MAX }, store: { url: redis.url, command_timeout_ms: 3_000 } },
  });
});
afterAll(async () => {
  await redis?.stop();
  await h?.close();
});

async function counter(outcome: string): Promise<number> {
  const text = await (await fetch(`${h.recap.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`recap_events_total{outcome="${outcome}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const ask = (i: number) =>
  rawRequest(h.recap.url, {
    target: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-outage', 'x-conversation-id': `outage-${i}` },
    body: { model: 'gpt-test-small', messages: [{ role: 'user', content: `question ${i}` }] },
  });

describe('events while the store is down', () => {
  it('are written while Redis answers', async () => {
    expect((await ask(0)).status).toBe(200);
    await waitFor('the first event written', async () => (await counter('written')) === 1);
  });

  it('are dropped and counted while Redis is frozen, and every response is whole meanwhile', async () => {
    redis.pause();
    for (let i = 1; i <= 10; i++) {
      const r = await ask(i);
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).choices[0].message.content).toEqual(expect.any(String));
    }
    // Answered before any of their events could be written: the writes are still hanging, and the
    // queue never held more than its bound.
    expect(await counter('written')).toBe(1);
    expect(await counter('queue_full')).toBeGreaterThanOrEqual(10 - QUEUE_MAX);
    await waitFor('the queued writes to give up', async () => (await counter('store_error')) + (await counter('queue_full')) === 10);
    const listing = await rawRequest(h.recap.url, { target: '/recap/v1/conversations', headers: { authorization: 'Bearer sk-outage' } });
    expect(listing.status).toBe(503);
    expect(JSON.parse(listing.body).error.code).toBe('store_unavailable');
  });

  it('cost nothing once Redis is gone', async () => {
    await redis.kill();
    for (let i = 11; i <= 15; i++) expect((await ask(i)).status).toBe(200);
    await waitFor('the writes to fail', async () => (await counter('store_error')) + (await counter('queue_full')) === 15);
  });
});
