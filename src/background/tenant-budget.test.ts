import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { StoreUnavailableError } from '../store/store.js';
import { type SpendStore, TenantBudget } from './tenant-budget.js';

const WINDOW = 60_000;
const memoryStore = () => new MemoryStore({ ttlMs: 60_000, maxConversations: 100 });
const settle = () => new Promise((r) => setImmediate(r));
const windowStart = () => Math.floor(Date.now() / WINDOW) * WINDOW;

/** Reserves and settles at once: a call that cost `tokens`. */
async function spend(b: TenantBudget, tenant: string, tokens: number): Promise<boolean> {
  const r = await b.reserve(tenant, tokens);
  r?.settle(tokens);
  return r !== null;
}

describe('TenantBudget', () => {
  it('stops a tenant past its allowance until the window turns over, others unaffected', async () => {
    let now = 0;
    const b = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, now: () => now });
    expect(await spend(b, 'a', 600)).toBe(true);
    expect(await b.allows('a')).toBe(true);
    // A call whose cost would take the spend past the allowance is not made; one that fits is.
    expect(await spend(b, 'a', 500)).toBe(false);
    expect(await spend(b, 'a', 400)).toBe(true);
    expect(await b.allows('a')).toBe(false);
    expect(await b.reserve('a', 1)).toBeNull();
    expect(await b.allows('b')).toBe(true);
    now = WINDOW;
    expect(await b.allows('a')).toBe(true);
  });

  it('allows everything without a configured allowance', async () => {
    const b = new TenantBudget({ tokensPerWindow: undefined, windowMs: 1000 });
    expect(await spend(b, 'a', 1e12)).toBe(true);
    expect(await b.allows('a')).toBe(true);
  });

  it("applies a tenant's own allowance over the default, and to that tenant alone", async () => {
    const b = new TenantBudget({ tokensPerWindow: undefined, windowMs: WINDOW, perTenant: new Map([['vip', 100]]) });
    await spend(b, 'vip', 100);
    await spend(b, 'other', 1e9);
    expect(await b.allows('vip')).toBe(false);
    expect(await b.allows('other')).toBe(true);
  });

  it('lets one of a burst of reservations through when each would spend the allowance, across processes', async () => {
    const store = memoryStore();
    const one = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, store });
    const two = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, store });
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).reserve('t', 1200)));
    expect(burst.filter((r) => r !== null)).toHaveLength(1);
    expect(await store.tenantSpend('t', windowStart())).toBe(1200);
  });

  it('settles a reservation with what the call cost, and frees what a failed call did not spend', async () => {
    const store = memoryStore();
    const b = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, store });
    const held = await b.reserve('t', 900);
    expect(await b.reserve('t', 900)).toBeNull();
    const rest = await b.reserve('t', 100);
    expect(rest).not.toBeNull();
    expect(await b.reserve('t', 1)).toBeNull();
    held!.settle(300);
    await settle();
    expect(await store.tenantSpend('t', windowStart())).toBe(400);
    // What the settlement gave back can be reserved again.
    expect(await b.reserve('t', 600)).not.toBeNull();
    const failed = await b.reserve('u', 900);
    failed!.settle(0);
    failed!.settle(900);
    await settle();
    expect(await store.tenantSpend('u', windowStart())).toBe(0);
    expect(await b.allows('u')).toBe(true);
  });

  it('counts what every process spent, through the shared store', async () => {
    const store = memoryStore();
    const one = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, store });
    const two = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, store });
    await spend(one, 't', 700);
    await settle();
    expect(await two.allows('t')).toBe(true);
    // The other process's count is its own: the store refuses what would pass the allowance.
    expect(await spend(two, 't', 400)).toBe(false);
    expect(await spend(two, 't', 300)).toBe(true);
    await settle();
    expect(await one.allows('t')).toBe(false);
    expect(await one.reserve('t', 1)).toBeNull();
    expect(await store.tenantSpend('t', windowStart())).toBe(1000);
  });

  it('still bounds a tenant by its own process count while the store is down', async () => {
    const errors: string[] = [];
    const down: SpendStore = {
      reserveTenantSpend: () => Promise.reject(new StoreUnavailableError('down')),
      addTenantSpend: () => Promise.reject(new StoreUnavailableError('down')),
      tenantSpend: () => Promise.reject(new StoreUnavailableError('down')),
    };
    const b = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, store: down, onStoreError: (op) => errors.push(op) });
    expect(await b.allows('t')).toBe(true);
    const [first, second] = await Promise.all([b.reserve('t', 1000), b.reserve('t', 1000)]);
    expect(first).not.toBeNull();
    expect(second).toBeNull();
    first!.settle(1000);
    await settle();
    expect(await b.allows('t')).toBe(false);
    expect(errors).toEqual(['tenant_spend', 'reserve_tenant_spend', 'add_tenant_spend']);
  });
});
