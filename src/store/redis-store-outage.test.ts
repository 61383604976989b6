import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/helpers/redis-process.js';
import { startRedisServer, type ThrowawayRedis } from '../../test/helpers/redis-server.js';
import { settlesBefore } from '../../test/helpers/settles-before.js';
import { addEdit } from './checkpoints.js';
import { RedisStore } from './redis-store.js';
import { type Store, StoreUnavailableError } from './store.js';

// Failing open (docs/design.md rule 8): with Redis gone, every method gives up while it is still gone,
// bounded by its command timeout (well before a sentinel ten times as long), and the same store
// works again once Redis is back.

const COMMAND_TIMEOUT_MS = 300;
const SENTINEL_MS = 10 * COMMAND_TIMEOUT_MS;

const key = { tenant: 'tenant', conversation: 'conversation' };
const cp = { covered: 2, chainHash: 'h', summary: 's', summaryTokens: 1, coveredTokens: 9, model: 'm', createdAt: 0 };

const add = addEdit(cp, { perBranch: 8, total: 8 }, () => true);
const claim = { id: 'b', prefix: 2, link: 'h' };
const everyMethod: Record<string, (store: Store) => Promise<unknown>> = {
  load: (s) => s.load(key),
  updateCheckpoints: (s) => s.updateCheckpoints(key, add),
  delete: (s) => s.delete(key),
  readLocks: (s) => s.readLocks(key),
  tryLock: (s) => s.tryLock(key, claim, 10_000),
  unlock: (s) => s.unlock(key, 'b', 'token'),
  ping: (s) => s.ping(),
};

describe('redis store during an outage', () => {
  let redis: ThrowawayRedis;
  let store: RedisStore;
  beforeEach(async () => {
    redis = await startRedisServer();
    store = await RedisStore.open({ url: redis.url, keyPrefix: `recap-${randomBytes(4).toString('hex')}`, ttlMs: 60_000, commandTimeoutMs: COMMAND_TIMEOUT_MS });
  });
  afterEach(async () => {
    await store.close();
    await redis.stop();
  });

  it('rejects every method with StoreUnavailableError while Redis is down, then recovers by itself', async () => {
    expect(await store.updateCheckpoints(key, add, 0)).toEqual({ ok: true, version: 1 });
    await redis.kill();
    // Redis stays dead until the restart below: every call must give up without it.
    for (const [name, call] of Object.entries(everyMethod)) {
      const error = call(store).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(await settlesBefore(error, SENTINEL_MS), name).toBe(true);
      expect(await error, name).toBeInstanceOf(StoreUnavailableError);
    }
    await waitFor('the store to notice', async () => store.state() === 'down');

    await redis.restart();
    await waitFor('the store to reconnect', () => store.ping().then(() => true));
    expect(store.state()).toBe('ready');
    // The restarted server is empty (nothing persisted); the same store instance serves again.
    expect(await store.load(key)).toBeNull();
    expect(await store.updateCheckpoints(key, add, 0)).toEqual({ ok: true, version: 1 });
  });

  it('gives up on a server that stops answering, and never replays those writes after reconnecting', async () => {
    redis.pause();
    await Promise.all(
      Object.entries(everyMethod).map(async ([name, call]) => {
        const error = call(store).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(await settlesBefore(error, SENTINEL_MS), name).toBe(true);
        expect(await error, name).toBeInstanceOf(StoreUnavailableError);
      }),
    );
    // The commands sit unread in the dead server's socket; a client that resends unanswered
    // commands on reconnect would now take a lock no request is waiting for.
    await redis.restart();
    await waitFor('the store to reconnect', () => store.ping().then(() => true));
    expect((await store.readLocks(key)).holders).toEqual([]);
    expect(await store.load(key)).toBeNull();
  });
});
