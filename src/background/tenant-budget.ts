// Summarizer spend per tenant in a fixed window. A tenant past its allowance gets the `window`
// strategy until the window turns over, so one noisy tenant cannot run up the summarizer bill.
// Per process: with N replicas a tenant may spend up to N times the allowance (documented).

export class TenantBudget {
  private readonly spent = new Map<string, { windowStart: number; tokens: number }>();

  constructor(
    private readonly tokensPerWindow: number | undefined,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private entry(tenant: string) {
    const t = this.now();
    let e = this.spent.get(tenant);
    if (!e || t - e.windowStart >= this.windowMs) {
      e = { windowStart: t, tokens: 0 };
      this.spent.set(tenant, e);
      if (this.spent.size > 100_000) this.prune(t);
    }
    return e;
  }

  allows(tenant: string): boolean {
    return this.tokensPerWindow === undefined || this.entry(tenant).tokens < this.tokensPerWindow;
  }

  record(tenant: string, tokens: number): void {
    if (this.tokensPerWindow !== undefined) this.entry(tenant).tokens += tokens;
  }

  private prune(t: number): void {
    for (const [k, e] of this.spent) if (t - e.windowStart >= this.windowMs) this.spent.delete(k);
  }
}
