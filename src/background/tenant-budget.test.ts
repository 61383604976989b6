import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { StoreUnavailableError } from '../store/store.js';
import { type SpendStore, TenantBudget } from './tenant-budget.js';

const WINDOW = 60_000;
const memoryStore = () => new MemoryStore({ ttlMs: 60_000, maxConversations: 100 });
const settle = () => new Promise((r) => setImmediate(r));

describe('TenantBudget', () => {
  it('stops a tenant past its allowance until the window turns over, others unaffected', async () => {
    let now = 0;
    const b = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, now: () => now });
    b.record('a', 600);
    expect(await b.allows('a')).toBe(true);
    b.record('a', 500);
    expect(await b.allows('a')).toBe(false);
    expect(await b.allows('b')).toBe(true);
    now = WINDOW;
    expect(await b.allows('a')).toBe(true);
  });

  it('allows everything without a configured allowance', async () => {
    const b = new TenantBudget({ tokensPerWindow: undefined, windowMs: 1000 });
    b.record('a', 1e12);
    expect(await b.allows('a')).toBe(true);
  });

  it("applies a tenant's own allowance over the default, and to that tenant alone", async () => {
    const b = new TenantBudget({ tokensPerWindow: undefined, windowMs: WINDOW, perTenant: new Map([['vip', 100]]) });
    b.record('vip', 100);
    b.record('other', 1e9);
    expect(await b.allows('vip')).toBe(false);
    expect(await b.allows('other')).toBe(true);
  });

  it('counts what every process spent, through the shared store', async () => {
    const store = memoryStore();
    const one = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, store });
    const two = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, store });
    one.record('t', 700);
    await settle();
    expect(await two.allows('t')).toBe(true);
    two.record('t', 400);
    await settle();
    expect(await one.allows('t')).toBe(false);
    expect(await store.tenantSpend('t', Math.floor(Date.now() / WINDOW) * WINDOW)).toBe(1100);
  });

  it('still bounds a tenant by its own process count while the store is down', async () => {
    const errors: string[] = [];
    const down: SpendStore = {
      addTenantSpend: () => Promise.reject(new StoreUnavailableError('down')),
      tenantSpend: () => Promise.reject(new StoreUnavailableError('down')),
    };
    const b = new TenantBudget({ tokensPerWindow: 1000, windowMs: WINDOW, store: down, onStoreError: (op) => errors.push(op) });
    expect(await b.allows('t')).toBe(true);
    b.record('t', 1000);
    await settle();
    expect(await b.allows('t')).toBe(false);
    expect(errors).toEqual(['tenant_spend', 'add_tenant_spend']);
  });
});
