import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type ThrowawayCluster } from '../../test/helpers/redis-cluster.js';
import { redisCli, waitFor } from '../../test/helpers/redis-process.js';
import { addEdit } from './checkpoints.js';
import { RedisStore } from './redis-store.js';
import { runStoreCases } from './store.case.js';

let cluster: ThrowawayCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
});
afterAll(() => cluster?.stop());

const uniquePrefix = () => `recap-test-${randomBytes(6).toString('hex')}`;

// open() gives up waiting after a second (recap boots and fails open); on a busy machine a new
// cluster client can take longer to learn the slots, and these cases are about a working store.
async function openReady(options: Parameters<typeof RedisStore.open>[0]): Promise<RedisStore> {
  const store = await RedisStore.open(options);
  await waitFor('cluster store ready', async () => (await store.ping(), true));
  return store;
}

runStoreCases('redis cluster', (limits) => openReady({ ...limits, url: cluster.url, keyPrefix: uniquePrefix(), commandTimeoutMs: 2_000 }));

describe('redis cluster sharding', () => {
  it('spreads conversations over the masters', async () => {
    const store = await openReady({ url: cluster.url, keyPrefix: uniquePrefix(), ttlMs: 60_000, commandTimeoutMs: 2_000 });
    const cp = { covered: 1, chainHash: 'h', summary: 's', summaryTokens: 1, coveredTokens: 5, model: 'm', createdAt: 0 };
    for (let i = 0; i < 30; i++) {
      const key = { tenant: 't', conversation: `c${i}` };
      expect(
        await store.updateCheckpoints(
          key,
          addEdit(cp, { perBranch: 8, total: 8 }, () => true),
          0,
        ),
      ).toEqual({ ok: true, version: 1 });
      expect((await store.tryLock(key, { id: 'b', prefix: 1, link: 'h' }, 60_000)).token).not.toBeNull();
    }
    const sizes = await Promise.all(cluster.nodes.map(async (node) => Number(await redisCli(node.port, 'dbsize'))));
    expect(sizes.filter((size) => size > 0).length).toBeGreaterThan(1);
    await store.close();
  });
});
