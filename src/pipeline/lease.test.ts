import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { MemoryStore } from '../store/memory-store.js';
import { holdLease, LEASE_MS } from './lease.js';
import { createRecords } from './records.js';

const key = { tenant: 'tenant', conversation: 'conversation' };
const claim = { id: 'b', prefix: 4, link: 'link-b' };

describe('a compaction claim held as a lease', () => {
  let store: MemoryStore;
  beforeEach(() => {
    vi.useFakeTimers();
    store = new MemoryStore({ ttlMs: 60_000, maxConversations: 10 });
  });
  afterEach(() => vi.useRealTimers());

  const records = () => createRecords(store, createMetrics(), createLogger('silent'), { perBranch: 4, total: 8 });
  const holders = async () => (await store.readLocks(key)).holders.map((h) => h.id);

  it('stays held past its lease while its holder lives, and goes at once when released', async () => {
    const r = records();
    const { token } = await store.tryLock(key, claim, LEASE_MS);
    const held = holdLease(r, key, claim.id, token!);
    await vi.advanceTimersByTimeAsync(5 * LEASE_MS);
    expect(await holders()).toEqual(['b']);
    await held.release();
    expect(await holders()).toEqual([]);
    // Released for good: no renewal brings it back, and releasing again does nothing.
    await vi.advanceTimersByTimeAsync(2 * LEASE_MS);
    expect(await holders()).toEqual([]);
    await held.release();
  });

  it('lapses within one lease once its holder stops renewing it', async () => {
    const { token } = await store.tryLock(key, claim, LEASE_MS);
    // A holder that died renews nothing: this one never started renewing.
    expect(token).not.toBeNull();
    await vi.advanceTimersByTimeAsync(LEASE_MS + 1);
    expect(await holders()).toEqual([]);
  });

  it('stops renewing a claim it lost, and never takes back what another holds now', async () => {
    const r = records();
    const { token } = await store.tryLock(key, claim, LEASE_MS);
    const held = holdLease(r, key, claim.id, token!);
    await store.unlock(key, claim.id, token!);
    const other = await store.tryLock(key, claim, LEASE_MS);
    await vi.advanceTimersByTimeAsync(LEASE_MS + 1);
    // The other holder's lease was not renewed by the first one: it lapsed.
    expect(await holders()).toEqual([]);
    await held.release();
    expect(other.token).not.toBe(token);
  });
});
