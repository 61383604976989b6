import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redisCli } from '../../test/helpers/redis-process.js';
import { startRedisServer, type ThrowawayRedis } from '../../test/helpers/redis-server.js';
import { addEdit } from './checkpoints.js';
import { RedisStore } from './redis-store.js';
import { StoreUnavailableError } from './store.js';

// A write that reaches Redis in time but runs only after its caller gave up must not apply
// (write-deadline.ts). CLIENT PAUSE WRITE serves the reads that precede each write and holds the
// write scripts themselves until the pause ends, long after the callers' bound.

const cp = { covered: 2, chainHash: 'h', summary: 's', summaryTokens: 1, coveredTokens: 9, model: 'm', createdAt: 0 };
const add = addEdit(cp, { perBranch: 8, total: 8 }, () => true);
const claim = { id: 'b', prefix: 2, link: 'h' };
const newKey = () => ({ tenant: randomBytes(8).toString('base64url'), conversation: randomBytes(8).toString('base64url') });

describe('redis store writes held past their deadline', () => {
  let redis: ThrowawayRedis;
  let store: RedisStore;
  beforeEach(async () => {
    redis = await startRedisServer();
    store = await RedisStore.open({ url: redis.url, keyPrefix: 'recap', ttlMs: 60_000, commandTimeoutMs: 200 });
  });
  afterEach(async () => {
    await store.close();
    await redis.stop();
  });

  it('refuses the checkpoint, the lock and the delete when Redis runs them late', async () => {
    const existing = newKey();
    const fresh = newKey();
    await store.updateCheckpoints(existing, add, 0);
    await redisCli(redis.port, 'client', 'pause', '1000', 'write');
    const outcomes = await Promise.all(
      [store.updateCheckpoints(fresh, add, 0), store.tryLock(fresh, claim, 60_000), store.delete(existing)].map((p) => p.catch((err: unknown) => err)),
    );
    for (const outcome of outcomes) expect(outcome).toBeInstanceOf(StoreUnavailableError);

    // Held behind the store's writes, so it returns once they have run.
    await redisCli(redis.port, 'del', 'probe');
    expect(await store.load(fresh)).toBeNull();
    expect((await store.readLocks(fresh)).holders).toEqual([]);
    expect(await store.load(existing)).toMatchObject({ version: 1 });
    // Each script ran and refused (rather than never being sent).
    expect(await redisCli(redis.port, 'info', 'errorstats')).toMatch(/errorstat_LATE:count=3\b/);
  });

  it("lets a held unlock run late, since it can only free the caller's own lock", async () => {
    const key = newKey();
    const token = (await store.tryLock(key, claim, 60_000)).token!;
    await redisCli(redis.port, 'client', 'pause', '1000', 'write');
    await expect(store.unlock(key, 'b', token)).rejects.toBeInstanceOf(StoreUnavailableError);
    await redisCli(redis.port, 'del', 'probe');
    expect((await store.readLocks(key)).holders).toEqual([]);
  });
});
