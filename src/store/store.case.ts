import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { hashChain } from '../conversation/canonical.js';
import { addEdit, applies } from './checkpoints.js';
import { runEventLogCases } from './event-log.case.js';
import type { Checkpoint, CheckpointEdit, ConversationKey, Store, StoreLimits } from './store.js';

// The store contract, run by every implementation (memory-store.test.ts, redis-store.test.ts,
// redis-cluster-store.test.ts), in the manner of hono's router/common.case.test.ts.

export type MakeStore = (limits: StoreLimits) => Promise<Store>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until the wall clock reads `at`: a timer may fire early against Date.now() when the loop's cached time is stale. */
async function until(at: number): Promise<void> {
  while (Date.now() < at) await sleep(Math.max(1, at - Date.now()));
}
// Beyond a TTL, for the stores' millisecond clocks.
const MARGIN_MS = 50;
const ATTEMPTS = 5;

/**
 * What holds while an entry is within its TTL shows only to reads that finish within it. Each
 * attempt (on fresh data) says whether its reads did; one that the machine was too slow to make in
 * time is made again, never counted. Expiry is checked once the TTL has surely passed, which no
 * slowness can break.
 */
async function inTime(attempt: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < ATTEMPTS; i++) if (await attempt()) return;
  throw new Error(`none of ${ATTEMPTS} attempts could read within the TTL: the machine is too slow for this test`);
}
const opaque = () => randomBytes(12).toString('base64url');
const newKey = (): ConversationKey => ({ tenant: opaque(), conversation: opaque() });

function checkpoint(covered: number, chainHash: string, summary = `summary of ${covered}`): Checkpoint {
  return { covered, chainHash, summary, summaryTokens: 10, coveredTokens: covered * 100, model: 'test-model', createdAt: Date.now() };
}

/** Adds a checkpoint, keeping everything else (a bound far above what the tests store). */
const add = (cp: Checkpoint): CheckpointEdit => addEdit(cp, { perBranch: 100, total: 100 }, () => false);
const claim = (id: string, prefix = 4) => ({ id, prefix, link: `link-${id}` });

export function runStoreCases(name: string, makeStore: MakeStore): void {
  describe(`${name} store`, () => {
    const opened: Store[] = [];
    const open = async (limits: Partial<StoreLimits> = {}) => {
      const store = await makeStore({ ttlMs: 60_000, ...limits });
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
      expect(await store.updateCheckpoints(key, add(first), 0)).toEqual({ ok: true, version: 1 });
      const loaded = await store.load(key);
      expect(loaded).toMatchObject({ version: 1, checkpoints: [first] });
      expect(loaded?.updatedAt).toBeGreaterThan(Date.now() - 60_000);
      expect(await store.updateCheckpoints(key, add(checkpoint(2, 'link-2')), 1)).toEqual({ ok: true, version: 2 });
      expect((await store.load(key))?.checkpoints.map((cp) => cp.covered)).toEqual([2, 4]);
    });

    it('rejects a write whose expected version is stale, reporting the current one', async () => {
      const store = await open();
      const key = newKey();
      await store.updateCheckpoints(key, add(checkpoint(2, 'a')), 0);
      expect(await store.updateCheckpoints(key, add(checkpoint(4, 'b')), 0)).toEqual({ ok: false, current: 1 });
      expect(await store.updateCheckpoints(key, add(checkpoint(4, 'b')), 5)).toEqual({ ok: false, current: 1 });
      expect((await store.load(key))?.checkpoints).toHaveLength(1);
    });

    it('lets exactly one of many concurrent writers with the same expected version win', async () => {
      const store = await open();
      const key = newKey();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.updateCheckpoints(key, add(checkpoint(i + 1, `w${i}`)), 0)));
      expect(results.filter((r) => r.ok)).toEqual([{ ok: true, version: 1 }]);
      expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.current === 1)).toBe(true);
      expect((await store.load(key))?.checkpoints).toHaveLength(1);
    });

    it('applies every concurrent edit made without an expected version: none is lost', async () => {
      const store = await open();
      const key = newKey();
      const results = await Promise.all([1, 2, 3].map((i) => store.updateCheckpoints(key, add(checkpoint(i, `w${i}`)))));
      expect(results.every((r) => r.ok)).toBe(true);
      expect((await store.load(key))?.checkpoints.map((cp) => cp.covered)).toEqual([1, 2, 3]);
      expect((await store.load(key))?.version).toBe(3);
    });

    it('writes nothing when the edit has nothing to change', async () => {
      const store = await open();
      const key = newKey();
      await store.updateCheckpoints(key, add(checkpoint(2, 'a')));
      expect(await store.updateCheckpoints(key, () => null)).toEqual({ ok: true, version: 1 });
      expect((await store.load(key))?.version).toBe(1);
    });

    it('gives the edit the stored list, so it decides from what is there', async () => {
      const store = await open();
      const key = newKey();
      await store.updateCheckpoints(key, add(checkpoint(2, 'a')));
      await store.updateCheckpoints(key, (list) => list.map((cp) => ({ ...cp, summary: `${cp.summary}, edited` })));
      expect((await store.load(key))?.checkpoints[0]?.summary).toBe('summary of 2, edited');
    });

    it('round-trips every checkpoint field, provisional ones included', async () => {
      const store = await open();
      const key = newKey();
      const full: Checkpoint = { ...checkpoint(3, 'h'), prefix: 9, kept: [0, 2], cleared: [4, 7], pendingUntil: Date.now() + 5_000, pendingToken: 'tok' };
      await store.updateCheckpoints(key, add(full));
      expect((await store.load(key))?.checkpoints).toEqual([full]);
    });

    it('tells which stored checkpoints a request still starts with', async () => {
      const store = await open();
      const key = newKey();
      const links = hashChain(['m1', 'm2', 'm3', 'm4', 'm5', 'm6']);
      await store.updateCheckpoints(key, add(checkpoint(2, links[1] ?? '')));
      await store.updateCheckpoints(key, add({ ...checkpoint(2, links[3] ?? ''), prefix: 4 }));
      const stored = (await store.load(key))?.checkpoints ?? [];
      expect(stored.filter((cp) => applies(cp, links))).toHaveLength(2);
      expect(stored.filter((cp) => applies(cp, links.slice(0, 3))).map((cp) => cp.prefix ?? cp.covered)).toEqual([2]);
      const editedThird = hashChain(['m1', 'm2', 'edited', 'm4', 'm5', 'm6']);
      expect(stored.filter((cp) => applies(cp, editedThird))).toHaveLength(1);
      const editedFirst = hashChain(['edited', 'm2', 'm3', 'm4', 'm5', 'm6']);
      expect(stored.filter((cp) => applies(cp, editedFirst))).toEqual([]);
    });

    it('lands every one of a dozen edits made at once, none told to expect a version', async () => {
      const store = await open();
      const key = newKey();
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => store.updateCheckpoints(key, add(checkpoint(i + 2, `branch-${i}`)))));
      expect(results.every((r) => r.ok)).toBe(true);
      expect((await store.load(key))?.checkpoints).toHaveLength(12);
      expect(await store.loadVersion(key)).toBe(12);
    });

    it('reads a version alone: 0 without a record, what a load finds after each write, 0 once deleted', async () => {
      const store = await open();
      const key = newKey();
      expect(await store.loadVersion(key)).toBe(0);
      await store.updateCheckpoints(key, add(checkpoint(2, 'a')), 0);
      expect(await store.loadVersion(key)).toBe(1);
      await store.updateCheckpoints(key, add(checkpoint(4, 'b')));
      expect(await store.loadVersion(key)).toBe(2);
      expect((await store.load(key))?.version).toBe(2);
      await store.delete(key);
      expect(await store.loadVersion(key)).toBe(0);
    });

    const reads = {
      load: async (store: Store, key: ConversationKey) => (await store.load(key)) !== null,
      'version read': async (store: Store, key: ConversationKey) => (await store.loadVersion(key)) > 0,
    };
    it.each(Object.entries(reads))('expires records after the TTL, and a %s refreshes it', async (_, finds) => {
      const ttl = 600;
      const store = await open({ ttlMs: ttl });
      let key = newKey();
      await inTime(async () => {
        key = newKey();
        const writing = Date.now();
        await store.updateCheckpoints(key, add(checkpoint(2, 'a')), 0);
        const written = Date.now();
        await until(writing + ttl / 2);
        const loading = Date.now();
        const first = await finds(store, key);
        if (Date.now() >= writing + ttl) return false;
        expect(first).toBe(true);
        // Past the write's own TTL, within the read's: alive only because the read refreshed it.
        await until(written + ttl + MARGIN_MS);
        const second = await finds(store, key);
        if (Date.now() >= loading + ttl) return false;
        expect(second).toBe(true);
        return true;
      });
      // Untouched for longer than the TTL: gone.
      await until(Date.now() + ttl + MARGIN_MS);
      expect(await store.load(key)).toBeNull();
    });

    it('deletes a record and tells whether there was one', async () => {
      const store = await open();
      const key = newKey();
      await store.updateCheckpoints(key, add(checkpoint(2, 'a')), 0);
      expect(await store.delete(key)).toBe(true);
      expect(await store.load(key)).toBeNull();
      expect(await store.delete(key)).toBe(false);
      expect(await store.updateCheckpoints(key, add(checkpoint(2, 'a')), 0)).toEqual({ ok: true, version: 1 });
    });

    it('grants a lock id to exactly one of many concurrent callers, and other ids to every caller', async () => {
      const store = await open();
      const key = newKey();
      const grants = await Promise.all(Array.from({ length: 10 }, (_, i) => store.tryLock(key, claim(i % 2 === 0 ? 'b1' : `c${i}`), 10_000)));
      // Five callers wanted b1: one got it. The other five ids were each wanted once: all granted.
      expect(grants.filter((g, i) => i % 2 === 0 && g.token !== null)).toHaveLength(1);
      expect(grants.filter((g, i) => i % 2 === 1 && g.token !== null)).toHaveLength(5);
      expect((await store.readLocks(key)).holders).toHaveLength(6);
    });

    it('reports with each lock what was held when it was taken, so a later claim always sees an earlier one', async () => {
      const store = await open();
      const key = newKey();
      const grants = await Promise.all(Array.from({ length: 8 }, (_, i) => store.tryLock(key, claim(`b${i}`), 10_000)));
      const tokens = grants.map((g) => g.token);
      expect(tokens.every((t) => typeof t === 'string')).toBe(true);
      // Taken one after another: each saw all those taken before it, a different number each.
      const seen = grants.map((g) => g.earlier.length).sort((x, y) => x - y);
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      for (const g of grants) for (const h of g.earlier) expect(tokens).toContain(h.token);
    });

    it('lists who holds what, and refuses an id that is held, naming its holder', async () => {
      const store = await open();
      const key = newKey();
      const first = await store.tryLock(key, claim('b1', 7), 10_000);
      expect(first).toEqual({ token: expect.any(String), earlier: [] });
      const holder = { id: 'b1', prefix: 7, link: 'link-b1', token: first.token };
      expect((await store.readLocks(key)).holders).toEqual([holder]);
      expect(await store.tryLock(key, claim('b1', 7), 10_000)).toEqual({ token: null, earlier: [holder] });
      expect(await store.tryLock(key, claim('b2', 9), 10_000)).toEqual({ token: expect.any(String), earlier: [holder] });
      expect((await store.readLocks(key)).holders.map((h) => h.id).sort()).toEqual(['b1', 'b2']);
    });

    it('releases a lock only for the token that holds it', async () => {
      const store = await open();
      const key = newKey();
      const { token } = await store.tryLock(key, claim('b'), 10_000);
      expect(token).toEqual(expect.any(String));
      await store.unlock(key, 'b', 'not-the-token');
      expect((await store.readLocks(key)).holders).toHaveLength(1);
      await store.unlock(key, 'b', token ?? '');
      expect((await store.readLocks(key)).holders).toEqual([]);
      expect((await store.tryLock(key, claim('b'), 10_000)).token).toEqual(expect.any(String));
    });

    it('releases a lock when it expires', async () => {
      const ttl = 300;
      const store = await open();
      let key = newKey();
      let taken = 0;
      await inTime(async () => {
        key = newKey();
        const taking = Date.now();
        expect((await store.tryLock(key, claim('b'), ttl)).token).not.toBeNull();
        taken = Date.now();
        const again = await store.tryLock(key, claim('b'), ttl);
        if (Date.now() >= taking + ttl) return false;
        expect(again.token).toBeNull();
        return true;
      });
      await until(taken + ttl + MARGIN_MS);
      expect((await store.readLocks(key)).holders).toEqual([]);
      expect(await store.tryLock(key, claim('b'), ttl)).toEqual({ token: expect.any(String), earlier: [] });
    });

    it('renews a lock only for the token that holds it, and only while it has not lapsed', async () => {
      const ttl = 300;
      const store = await open();
      let key = newKey();
      let token = '';
      await inTime(async () => {
        key = newKey();
        const taking = Date.now();
        token = (await store.tryLock(key, claim('b'), ttl)).token!;
        expect(await store.renewLock(key, 'b', 'not-the-token', 10_000)).toBe(false);
        const renewed = await store.renewLock(key, 'b', token, 10_000);
        if (Date.now() >= taking + ttl) return false;
        expect(renewed).toBe(true);
        return true;
      });
      await until(Date.now() + ttl + MARGIN_MS);
      // Past its first lease, alive on the renewed one.
      expect((await store.readLocks(key)).holders.map((h) => h.token)).toEqual([token]);
      expect((await store.tryLock(key, claim('b'), ttl)).token).toBeNull();
      await store.unlock(key, 'b', token);
      expect(await store.renewLock(key, 'b', token, 10_000)).toBe(false);

      const lapsing = await store.tryLock(key, claim('c'), ttl);
      await until(Date.now() + ttl + MARGIN_MS);
      expect(await store.renewLock(key, 'c', lapsing.token!, 10_000)).toBe(false);
      expect((await store.readLocks(key)).holders).toEqual([]);
    });

    it('keeps tenants apart even for the same conversation id', async () => {
      const store = await open();
      const mine = newKey();
      const theirs = { tenant: opaque(), conversation: mine.conversation };
      await store.updateCheckpoints(mine, add(checkpoint(2, 'a')), 0);
      await store.tryLock(mine, claim('b'), 10_000);
      expect(await store.load(theirs)).toBeNull();
      expect((await store.readLocks(theirs)).holders).toEqual([]);
      expect(await store.delete(theirs)).toBe(false);
      expect(await store.load(mine)).not.toBeNull();
    });

    it('hands out copies: changing a loaded record changes nothing stored', async () => {
      const store = await open();
      const key = newKey();
      await store.updateCheckpoints(key, add(checkpoint(2, 'a')), 0);
      const loaded = await store.load(key);
      loaded?.checkpoints.push(checkpoint(9, 'z'));
      expect((await store.load(key))?.checkpoints).toHaveLength(1);
    });

    it('refuses keys that are not opaque hashes, so tenants cannot collide', async () => {
      const store = await open();
      await expect(store.load({ tenant: 'a.b', conversation: 'c' })).rejects.toThrow(TypeError);
      await expect(store.tryLock({ tenant: 'a}', conversation: 'c' }, claim('b'), 100)).rejects.toThrow(TypeError);
    });
  });

  describe(`${name} store, per tenant`, () => {
    const opened: Store[] = [];
    const open = async () => {
      const store = await makeStore({ ttlMs: 60_000 });
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });
    const windowStart = () => Math.floor(Date.now() / 60_000) * 60_000;

    it("counts a tenant's summarizer spend per window, returning the running total", async () => {
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

    it("reserves spend only within the limit (or as the window's first), in one step, whoever reserves at once", async () => {
      const store = await open();
      const tenant = opaque();
      const w = windowStart();
      expect(await store.reserveTenantSpend(tenant, w, 600, 1000, 60_000)).toBe(600);
      // A reservation that would take the spend past the limit is refused; one that fits is not.
      expect(await store.reserveTenantSpend(tenant, w, 600, 1000, 60_000)).toBeNull();
      expect(await store.reserveTenantSpend(tenant, w, 400, 1000, 60_000)).toBe(1000);
      expect(await store.reserveTenantSpend(tenant, w, 1, 1000, 60_000)).toBeNull();
      expect(await store.tenantSpend(tenant, w)).toBe(1000);
      // Settled below what was reserved: the difference is given back.
      expect(await store.addTenantSpend(tenant, w, -500, 60_000)).toBe(500);
      expect(await store.reserveTenantSpend(tenant, w, 100, 1000, 60_000)).toBe(600);
      // The window's first call may be bigger than the whole allowance: it alone is granted.
      const big = opaque();
      expect(await store.reserveTenantSpend(big, w, 5000, 1000, 60_000)).toBe(5000);
      expect(await store.reserveTenantSpend(big, w, 1, 1000, 60_000)).toBeNull();

      const burst = opaque();
      const granted = await Promise.all(Array.from({ length: 20 }, () => store.reserveTenantSpend(burst, w, 400, 1000, 60_000)));
      expect(granted.filter((t) => t !== null).sort((a, b) => a! - b!)).toEqual([400, 800]);
      expect(await store.tenantSpend(burst, w)).toBe(800);
    });

    it('lets a reservation expire with its window like any spend', async () => {
      const windowMs = 150;
      const store = await open();
      let tenant = opaque();
      let added = 0;
      await inTime(async () => {
        tenant = opaque();
        const adding = Date.now();
        await store.reserveTenantSpend(tenant, 0, 10, 100, windowMs);
        added = Date.now();
        const spent = await store.tenantSpend(tenant, 0);
        if (Date.now() >= adding + 2 * windowMs) return false;
        expect(spent).toBe(10);
        return true;
      });
      await until(added + 2 * windowMs + MARGIN_MS);
      expect(await store.tenantSpend(tenant, 0)).toBe(0);
    });

    it('lets a spend count expire after its window and the next', async () => {
      const windowMs = 150;
      const store = await open();
      let tenant = opaque();
      let added = 0;
      await inTime(async () => {
        tenant = opaque();
        const adding = Date.now();
        await store.addTenantSpend(tenant, 0, 10, windowMs);
        added = Date.now();
        const spent = await store.tenantSpend(tenant, 0);
        if (Date.now() >= adding + 2 * windowMs) return false;
        expect(spent).toBe(10);
        return true;
      });
      await until(added + 2 * windowMs + MARGIN_MS);
      expect(await store.tenantSpend(tenant, 0)).toBe(0);
    });

    it('remembers an accepted credential until its TTL runs out', async () => {
      const ttl = 400;
      const store = await open();
      let id = opaque();
      let marked = 0;
      await inTime(async () => {
        id = opaque();
        expect(await store.isAccepted(id)).toBe(false);
        const marking = Date.now();
        await store.markAccepted(id, ttl);
        marked = Date.now();
        const accepted = await store.isAccepted(id);
        if (Date.now() >= marking + ttl) return false;
        expect(accepted).toBe(true);
        return true;
      });
      expect(await store.isAccepted(opaque())).toBe(false);
      await until(marked + ttl + MARGIN_MS);
      expect(await store.isAccepted(id)).toBe(false);
    });

    it('refuses tenant ids that are not opaque hashes', async () => {
      const store = await open();
      await expect(store.addTenantSpend('a:b', 0, 1, 1000)).rejects.toThrow(TypeError);
      await expect(store.tenantSpend('{x}', 0)).rejects.toThrow(TypeError);
      await expect(store.reserveTenantSpend('a}b', 0, 1, 10, 1000)).rejects.toThrow(TypeError);
      await expect(store.markAccepted('a b', 1000)).rejects.toThrow(TypeError);
    });
  });

  runEventLogCases(name, makeStore);
}
