import { describe, expect, it } from 'vitest';
import { TenantBudget } from './tenant-budget.js';

describe('TenantBudget', () => {
  it('stops a tenant past its allowance until the window turns over, others unaffected', () => {
    let now = 0;
    const b = new TenantBudget(1000, 60_000, () => now);
    b.record('a', 600);
    expect(b.allows('a')).toBe(true);
    b.record('a', 500);
    expect(b.allows('a')).toBe(false);
    expect(b.allows('b')).toBe(true);
    now = 60_000;
    expect(b.allows('a')).toBe(true);
  });

  it('allows everything without a configured allowance', () => {
    const b = new TenantBudget(undefined, 1000);
    b.record('a', 1e12);
    expect(b.allows('a')).toBe(true);
  });
});
