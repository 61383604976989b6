import type { Store } from '../store/store.js';

// Summarizer spend per tenant in fixed windows (aligned to the epoch, so every replica agrees on
// them). A tenant past its allowance gets the `window` strategy until the window turns over, so
// one noisy tenant cannot run up the summarizer bill. The count lives in the store, shared by all
// replicas; each process also counts what it spent itself, which still bounds a tenant while the
// store cannot answer (then to the allowance per process).

export type SpendStore = Pick<Store, 'addTenantSpend' | 'tenantSpend'>;

export interface TenantBudgetOptions {
  /** background.tenant_tokens_per_window; undefined: unlimited. */
  tokensPerWindow: number | undefined;
  windowMs: number;
  /** Allowances of single tenants (configured clients, by tenant hash), overriding tokensPerWindow. */
  perTenant?: ReadonlyMap<string, number>;
  /** The shared count; without one, each process counts alone. */
  store?: SpendStore;
  onStoreError?: (op: 'tenant_spend' | 'add_tenant_spend', err: unknown) => void;
  now?: () => number;
}

export class TenantBudget {
  private readonly spent = new Map<string, { windowStart: number; tokens: number }>();
  private readonly now: () => number;

  constructor(private readonly options: TenantBudgetOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Whether the tenant may still spend summarizer tokens in this window. */
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

  /** Counts tokens the tenant spent; the shared count is updated in the background. */
  record(tenant: string, tokens: number): void {
    if (this.limitOf(tenant) === undefined || tokens <= 0) return;
    const windowStart = this.windowStart();
    this.local(tenant, windowStart).tokens += tokens;
    const { store, onStoreError, windowMs } = this.options;
    store?.addTenantSpend(tenant, windowStart, tokens, windowMs).catch((err: unknown) => onStoreError?.('add_tenant_spend', err));
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
