import { spendFits } from '../store/spend-fits.js';
import type { Store } from '../store/store.js';

// Summarizer spend per tenant in fixed windows (aligned to the epoch, so every replica agrees on
// them). A tenant past its allowance gets the `window` strategy until the window turns over, so
// one noisy tenant cannot run up the summarizer bill. A summarizer call reserves what it will cost
// before it is made (one atomic check-and-add in the store, shared by all replicas) and settles
// with what it really cost once it answered, so a burst of calls cannot all pass the check before
// any of them is counted. A call is made only when its reservation fits what is left (or it is the
// window's first): a window spends the allowance at most, off only by how far the reservations'
// estimates fall short of what the calls cost. Each process also
// counts what it reserved itself, which still bounds a tenant while the store cannot answer (then
// to the allowance per process).

export type SpendStore = Pick<Store, 'reserveTenantSpend' | 'addTenantSpend' | 'tenantSpend'>;

export interface TenantBudgetOptions {
  /** background.tenant_tokens_per_window; undefined: unlimited. */
  tokensPerWindow: number | undefined;
  windowMs: number;
  /** Allowances of single tenants (configured clients, by tenant hash), overriding tokensPerWindow. */
  perTenant?: ReadonlyMap<string, number>;
  /** The shared count; without one, each process counts alone. */
  store?: SpendStore;
  onStoreError?: (op: 'tenant_spend' | 'reserve_tenant_spend' | 'add_tenant_spend', err: unknown) => void;
  now?: () => number;
}

/** Tokens held for one summarizer call until it is settled. */
export interface Reservation {
  /** Counts what the call really cost instead of the reservation (0 when it spent nothing); once. */
  settle(tokens: number): void;
}

const UNLIMITED: Reservation = { settle: () => {} };

export class TenantBudget {
  private readonly spent = new Map<string, { windowStart: number; tokens: number }>();
  private readonly now: () => number;

  constructor(private readonly options: TenantBudgetOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Whether the tenant may still spend summarizer tokens in this window (a read: nothing is held). */
  async allows(tenant: string): Promise<boolean> {
    const limit = this.limitOf(tenant);
    if (limit === undefined) return true;
    const windowStart = this.windowStart();
    if (this.local(tenant, windowStart).tokens >= limit) return false;
    const { store, onStoreError } = this.options;
    if (!store) return true;
    try {
      return (await store.tenantSpend(tenant, windowStart)) < limit;
    } catch (err) {
      onStoreError?.('tenant_spend', err);
      return true;
    }
  }

  /**
   * Holds `tokens` (what a summarizer call about to be made will cost, about) for the tenant, or
   * null when it would take the window's spend, reservations included, past the allowance (unless
   * it is the window's first call: spend-fits.ts).
   */
  async reserve(tenant: string, tokens: number): Promise<Reservation | null> {
    const limit = this.limitOf(tenant);
    if (limit === undefined) return UNLIMITED;
    const windowStart = this.windowStart();
    const local = this.local(tenant, windowStart);
    const held = Math.max(0, Math.ceil(tokens));
    if (!spendFits(local.tokens, held, limit)) return null;
    // Counted here before the store is asked, so this process's own burst sees it at once.
    local.tokens += held;
    const { store, onStoreError } = this.options;
    let inStore = false;
    if (store) {
      try {
        inStore = (await store.reserveTenantSpend(tenant, windowStart, held, limit, this.options.windowMs)) !== null;
        if (!inStore) {
          local.tokens -= held;
          return null;
        }
      } catch (err) {
        // Served on this process's count alone; the settlement adds the whole cost to the store.
        onStoreError?.('reserve_tenant_spend', err);
      }
    }
    let settled = false;
    return {
      settle: (spent) => {
        if (settled) return;
        settled = true;
        const cost = Math.max(0, Math.ceil(spent));
        const e = this.spent.get(tenant);
        if (e?.windowStart === windowStart) e.tokens += cost - held;
        const delta = inStore ? cost - held : cost;
        if (store && delta !== 0) store.addTenantSpend(tenant, windowStart, delta, this.options.windowMs).catch((err: unknown) => onStoreError?.('add_tenant_spend', err));
      },
    };
  }

  private limitOf(tenant: string): number | undefined {
    return this.options.perTenant?.get(tenant) ?? this.options.tokensPerWindow;
  }

  private windowStart(): number {
    const { windowMs } = this.options;
    return Math.floor(this.now() / windowMs) * windowMs;
  }

  private local(tenant: string, windowStart: number) {
    let e = this.spent.get(tenant);
    if (!e || e.windowStart !== windowStart) {
      e = { windowStart, tokens: 0 };
      this.spent.set(tenant, e);
      if (this.spent.size > 100_000) this.prune(windowStart);
    }
    return e;
  }

  private prune(windowStart: number): void {
    for (const [k, e] of this.spent) if (e.windowStart !== windowStart) this.spent.delete(k);
  }
}
