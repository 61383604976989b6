import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/helpers/redis-process.js';
import { startRedisServer, type ThrowawayRedis } from '../../test/helpers/redis-server.js';
import { RedisStore } from './redis-store.js';
import { StoreUnavailableError } from './store.js';

// A lock whose release failed while Redis was down must not outlive the outage when Redis comes
// back with its data (lock-release.ts).

const key = { tenant: 'tenant', conversation: 'conversation' };

describe('redis store lock release across an outage', () => {
  let redis: ThrowawayRedis;
  let store: RedisStore;
  beforeEach(async () => {
    redis = await startRedisServer(['--appendonly', 'yes', '--appendfsync', 'always']);
    store = await RedisStore.open({ url: redis.url, keyPrefix: 'recap', ttlMs: 60_000, commandTimeoutMs: 300 });
  });
  afterEach(async () => {
    await store.close();
    await redis.stop();
  });

  it('keeps releasing a lock it could not release, until Redis is back with it', async () => {
    const token = (await store.tryLock(key, { id: 'b', prefix: 2, link: 'h' }, 60_000)).token!;
    await redis.kill();
    await expect(store.unlock(key, 'b', token)).rejects.toBeInstanceOf(StoreUnavailableError);
    await redis.restart();
    await waitFor('the store to reconnect', () => store.ping().then(() => true));
    await waitFor('the lock to be released', async () => (await store.readLocks(key)).holders.length === 0, 3_000);
  });
});
