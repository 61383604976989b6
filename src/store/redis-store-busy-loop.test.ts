import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from './redis-store.js';

// A burst of big requests keeps the event loop busy for a while between two looks at the sockets.
// Node runs due timers before it reads the sockets, so a store call's timeout used to fire first
// even when Redis had answered in time and its reply was waiting to be read: the call was taken
// for an outage and the request compacted alone, one more summarizer call per such request (the
// flaky single-flight case of issue 27). A reply already received when the timeout fires now wins.

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TIMEOUT_MS = 100;

/** Holds the event loop for `ms`, as a burst of work does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning
  }
}

/** Lets the call reach its socket (ioredis writes from a microtask or a tick) before the loop is held, without reading any reply. */
async function sent(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => process.nextTick(resolve));
}

describe('redis store calls whose reply waits behind a busy event loop', () => {
  let store: RedisStore;
  beforeAll(async () => {
    store = await RedisStore.open({ url, keyPrefix: `recap-test-${randomBytes(6).toString('hex')}`, ttlMs: 60_000, commandTimeoutMs: TIMEOUT_MS });
  });
  afterAll(() => store.close());

  const key = () => ({ tenant: randomBytes(8).toString('base64url'), conversation: randomBytes(8).toString('base64url') });

  it('take the reply that arrived within the timeout, though the timer is due first', async () => {
    for (let i = 0; i < 5; i++) {
      const locks = store.readLocks(key());
      const record = store.load(key());
      await sent();
      busy(3 * TIMEOUT_MS);
      await expect(locks).resolves.toEqual({ holders: [] });
      await expect(record).resolves.toBeNull();
    }
  });
});
