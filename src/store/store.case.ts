import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { hashChain } from '../conversation/canonical.js';
import { findLongestMatch } from './checkpoints.js';
import type { Checkpoint, ConversationKey, Store, StoreLimits } from './store.js';

// The store contract, run by every implementation (memory-store.test.ts, redis-store.test.ts,
// redis-cluster-store.test.ts), in the manner of hono's router/common.case.test.ts.

export type MakeStore = (limits: StoreLimits) => Promise<Store>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const opaque = () => randomBytes(12).toString('base64url');
const newKey = (): ConversationKey => ({ tenant: opaque(), conversation: opaque() });

function checkpoint(covered: number, chainHash: string, summary = `summary of ${covered}`): Checkpoint {
  return { covered, chainHash, summary, summaryTokens: 10, coveredTokens: covered * 100, model: 'test-model', createdAt: Date.now() };
}

export function runStoreCases(name: string, makeStore: MakeStore): void {
  describe(`${name} store`, () => {
    const opened: Store[] = [];
    const open = async (limits: Partial<StoreLimits> = {}) => {
      const store = await makeStore({ ttlMs: 60_000, maxCheckpoints: 8, ...limits });
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    it('is ready and answers ping', async () => {
      const store = await open();
      await expect(store.ping()).resolves.toBeUndefined();
      expect(store.state()).toBe('ready');
    });

    it('loads a missing conversation as null', async () => {
      const store = await open();
      expect(await store.load(newKey())).toBeNull();
    });

    it('creates a record with version 0, then bumps the version on every write', async () => {
      const store = await open();
      const key = newKey();
      const first = checkpoint(4, 'link-4', 'héllo "quoted" — ünïcode ✓');
      expect(await store.addCheckpoint(key, first, 0)).toEqual({ ok: true, version: 1 });
      const loaded = await store.load(key);
      expect(loaded).toMatchObject({ version: 1, checkpoints: [first] });
      expect(loaded?.updatedAt).toBeGreaterThan(Date.now() - 60_000);
      expect(await store.addCheckpoint(key, checkpoint(2, 'link-2'), 1)).toEqual({ ok: true, version: 2 });
      expect((await store.load(key))?.checkpoints.map((cp) => cp.covered)).toEqual([2, 4]);
    });

    it('rejects a write whose expected version is stale, reporting the current one', async () => {
      const store = await open();
      const key = newKey();
      await store.addCheckpoint(key, checkpoint(2, 'a'), 0);
      expect(await store.addCheckpoint(key, checkpoint(4, 'b'), 0)).toEqual({ ok: false, current: 1 });
      expect(await store.addCheckpoint(key, checkpoint(4, 'b'), 5)).toEqual({ ok: false, current: 1 });
      expect((await store.load(key))?.checkpoints).toHaveLength(1);
    });

    it('lets exactly one of many concurrent writers with the same expected version win', async () => {
      const store = await open();
      const key = newKey();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.addCheckpoint(key, checkpoint(i + 1, `w${i}`), 0)));
      expect(results.filter((r) => r.ok)).toEqual([{ ok: true, version: 1 }]);
      expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.current === 1)).toBe(true);
      expect((await store.load(key))?.checkpoints).toHaveLength(1);
    });

    it('keeps at most maxCheckpoints, dropping the smallest covered', async () => {
      const store = await open({ maxCheckpoints: 3 });
      const key = newKey();
      let version = 0;
      for (const covered of [6, 2, 8, 4]) {
        const result = await store.addCheckpoint(key, checkpoint(covered, `c${covered}`), version);
        if (!result.ok) throw new Error('unexpected conflict');
        version = result.version;
      }
      expect((await store.load(key))?.checkpoints.map((cp) => cp.covered)).toEqual([4, 6, 8]);
    });

    it('replaces a checkpoint of the same prefix instead of adding a second', async () => {
      const store = await open();
      const key = newKey();
      await store.addCheckpoint(key, checkpoint(4, 'same', 'old'), 0);
      await store.addCheckpoint(key, checkpoint(4, 'other-branch', 'branch'), 1);
      await store.addCheckpoint(key, checkpoint(4, 'same', 'new'), 2);
      const summaries = (await store.load(key))?.checkpoints.map((cp) => cp.summary).sort();
      expect(summaries).toEqual(['branch', 'new']);
    });

    it('finds the longest stored prefix the request still starts with', async () => {
      const store = await open();
      const key = newKey();
      const links = hashChain(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
      await store.addCheckpoint(key, checkpoint(2, links[1] ?? ''), 0);
      await store.addCheckpoint(key, checkpoint(4, links[3] ?? ''), 1);
      const record = await store.load(key);
      expect(findLongestMatch(record, links)?.covered).toBe(4);
      expect(findLongestMatch(record, links.slice(0, 3))?.covered).toBe(2);
      const editedThird = hashChain(['m1', 'm2', 'edited', 'm4', 'm5', 'm6']);
      expect(findLongestMatch(record, editedThird)?.covered).toBe(2);
      const editedFirst = hashChain(['edited', 'm2', 'm3', 'm4', 'm5', 'm6']);
      expect(findLongestMatch(record, editedFirst)).toBeUndefined();
    });

    it('expires records after the TTL, and a load refreshes it', async () => {
      const store = await open({ ttlMs: 400 });
      const key = newKey();
      await store.addCheckpoint(key, checkpoint(2, 'a'), 0);
      await sleep(250);
      expect(await store.load(key)).not.toBeNull();
      await sleep(250);
      // 500 ms after the write: alive only because the load above refreshed the TTL.
      expect(await store.load(key)).not.toBeNull();
      await sleep(600);
      expect(await store.load(key)).toBeNull();
    });

    it('deletes a record and tells whether there was one', async () => {
      const store = await open();
      const key = newKey();
      await store.addCheckpoint(key, checkpoint(2, 'a'), 0);
      expect(await store.delete(key)).toBe(true);
      expect(await store.load(key)).toBeNull();
      expect(await store.delete(key)).toBe(false);
      expect(await store.addCheckpoint(key, checkpoint(2, 'a'), 0)).toEqual({ ok: true, version: 1 });
    });

    it('grants a lock to exactly one of many concurrent callers', async () => {
      const store = await open();
      const key = newKey();
      const tokens = await Promise.all(Array.from({ length: 10 }, () => store.tryLock(key, 'b1', 10_000)));
      expect(tokens.filter((t) => t !== null)).toHaveLength(1);
      expect(await store.isLocked(key, 'b1')).toBe(true);
      expect(await store.isLocked(key, 'b2')).toBe(false);
      expect(await store.tryLock(key, 'b2', 10_000)).toEqual(expect.any(String));
    });

    it('releases a lock only for the token that holds it', async () => {
      const store = await open();
      const key = newKey();
      const token = await store.tryLock(key, 'b', 10_000);
      expect(token).toEqual(expect.any(String));
      await store.unlock(key, 'b', 'not-the-token');
      expect(await store.isLocked(key, 'b')).toBe(true);
      await store.unlock(key, 'b', token ?? '');
      expect(await store.isLocked(key, 'b')).toBe(false);
      expect(await store.tryLock(key, 'b', 10_000)).toEqual(expect.any(String));
    });

    it('releases a lock when it expires', async () => {
      const store = await open();
      const key = newKey();
      expect(await store.tryLock(key, 'b', 100)).not.toBeNull();
      expect(await store.tryLock(key, 'b', 100)).toBeNull();
      await sleep(250);
      expect(await store.isLocked(key, 'b')).toBe(false);
      expect(await store.tryLock(key, 'b', 100)).not.toBeNull();
    });

    it('keeps tenants apart even for the same conversation id', async () => {
      const store = await open();
      const mine = newKey();
      const theirs = { tenant: opaque(), conversation: mine.conversation };
      await store.addCheckpoint(mine, checkpoint(2, 'a'), 0);
      await store.tryLock(mine, 'b', 10_000);
      expect(await store.load(theirs)).toBeNull();
      expect(await store.isLocked(theirs, 'b')).toBe(false);
      expect(await store.delete(theirs)).toBe(false);
      expect(await store.load(mine)).not.toBeNull();
    });

    it('hands out copies: changing a loaded record changes nothing stored', async () => {
      const store = await open();
      const key = newKey();
      await store.addCheckpoint(key, checkpoint(2, 'a'), 0);
      const loaded = await store.load(key);
      loaded?.checkpoints.push(checkpoint(9, 'z'));
      expect((await store.load(key))?.checkpoints).toHaveLength(1);
    });

    it('refuses keys that are not opaque hashes, so tenants cannot collide', async () => {
      const store = await open();
      await expect(store.load({ tenant: 'a.b', conversation: 'c' })).rejects.toThrow(TypeError);
      await expect(store.tryLock({ tenant: 'a}', conversation: 'c' }, 'b', 100)).rejects.toThrow(TypeError);
    });
  });

  describe(`${name} store, per tenant`, () => {
    const opened: Store[] = [];
    const open = async () => {
      const store = await makeStore({ ttlMs: 60_000, maxCheckpoints: 8 });
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });
    const windowStart = () => Math.floor(Date.now() / 60_000) * 60_000;

    it('counts a tenant\'s summarizer spend per window, returning the running total', async () => {
      const store = await open();
      const tenant = opaque();
      const w = windowStart();
      expect(await store.tenantSpend(tenant, w)).toBe(0);
      expect(await store.addTenantSpend(tenant, w, 700, 60_000)).toBe(700);
      expect(await store.addTenantSpend(tenant, w, 450, 60_000)).toBe(1150);
      expect(await store.tenantSpend(tenant, w)).toBe(1150);
      // Another window and another tenant start from nothing.
      expect(await store.tenantSpend(tenant, w + 60_000)).toBe(0);
      expect(await store.tenantSpend(opaque(), w)).toBe(0);
    });

    it('adds concurrent spends without losing any', async () => {
      const store = await open();
      const tenant = opaque();
      const w = windowStart();
      const totals = await Promise.all(Array.from({ length: 20 }, () => store.addTenantSpend(tenant, w, 5, 60_000)));
      expect(new Set(totals).size).toBe(20);
      expect(Math.max(...totals)).toBe(100);
      expect(await store.tenantSpend(tenant, w)).toBe(100);
    });

    it('lets a spend count expire after its window and the next', async () => {
      const store = await open();
      const tenant = opaque();
      await store.addTenantSpend(tenant, 0, 10, 150);
      expect(await store.tenantSpend(tenant, 0)).toBe(10);
      await sleep(450);
      expect(await store.tenantSpend(tenant, 0)).toBe(0);
    });

    it('remembers an accepted credential until its TTL runs out', async () => {
      const store = await open();
      const id = opaque();
      expect(await store.isAccepted(id)).toBe(false);
      await store.markAccepted(id, 200);
      expect(await store.isAccepted(id)).toBe(true);
      expect(await store.isAccepted(opaque())).toBe(false);
      await sleep(350);
      expect(await store.isAccepted(id)).toBe(false);
    });

    it('refuses tenant ids that are not opaque hashes', async () => {
      const store = await open();
      await expect(store.addTenantSpend('a:b', 0, 1, 1000)).rejects.toThrow(TypeError);
      await expect(store.tenantSpend('{x}', 0)).rejects.toThrow(TypeError);
      await expect(store.markAccepted('a b', 1000)).rejects.toThrow(TypeError);
    });
  });
}
