import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { addEdit } from './checkpoints.js';
import { RedisStore } from './redis-store.js';
import { runStoreCases } from './store.case.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// A prefix per store, so parallel test runs on one Redis never see each other's keys.
const uniquePrefix = () => `recap-test-${randomBytes(6).toString('hex')}`;

runStoreCases('redis', (limits) => RedisStore.open({ ...limits, url, keyPrefix: uniquePrefix(), commandTimeoutMs: 2_000 }));

describe('redis store key layout', () => {
  const raw = new Redis(url);
  afterAll(() => raw.quit());

  it('puts every key of a conversation under one hash tag, with a TTL on the record', async () => {
    const keyPrefix = uniquePrefix();
    const store = await RedisStore.open({ url, keyPrefix, ttlMs: 60_000, commandTimeoutMs: 2_000 });
    const key = { tenant: 'tenantHash', conversation: 'convHash' };
    const cp = { covered: 1, chainHash: 'h', summary: 's', summaryTokens: 1, coveredTokens: 5, model: 'm', createdAt: 0 };
    await store.updateCheckpoints(
      key,
      addEdit(cp, { perBranch: 8, total: 8 }, () => true),
      0,
    );
    await store.tryLock(key, { id: 'b1', prefix: 1, link: 'h' }, 60_000);
    const keys = (await raw.keys(`${keyPrefix}:*`)).sort();
    expect(keys).toEqual([`${keyPrefix}:{tenantHash.convHash}:locks`, `${keyPrefix}:{tenantHash.convHash}:rec`]);
    expect(await raw.hgetall(`${keyPrefix}:{tenantHash.convHash}:rec`)).toMatchObject({ v: '1', d: JSON.stringify([cp]) });
    expect(await raw.pttl(`${keyPrefix}:{tenantHash.convHash}:rec`)).toBeGreaterThan(59_000);
    await raw.del(...keys);
    await store.close();
  });

  it('reports a record it cannot read as unavailable rather than as missing', async () => {
    const keyPrefix = uniquePrefix();
    const store = await RedisStore.open({ url, keyPrefix, ttlMs: 60_000, commandTimeoutMs: 2_000 });
    await raw.hset(`${keyPrefix}:{t.c}:rec`, { v: '1', d: 'not json', u: '0' });
    await expect(store.load({ tenant: 't', conversation: 'c' })).rejects.toMatchObject({ code: 'store_unavailable' });
    await raw.del(`${keyPrefix}:{t.c}:rec`);
    await store.close();
  });
});
