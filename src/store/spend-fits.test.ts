import { describe, expect, it } from 'vitest';
import { spendFits } from './spend-fits.js';

describe('spendFits', () => {
  it('grants what stays within the allowance, and the first call of a window whatever its size', () => {
    expect(spendFits(0, 600, 1000)).toBe(true);
    expect(spendFits(600, 400, 1000)).toBe(true);
    expect(spendFits(600, 401, 1000)).toBe(false);
    expect(spendFits(0, 5000, 1000)).toBe(true);
    expect(spendFits(1000, 0, 1000)).toBe(false);
    expect(spendFits(1200, 1, 1000)).toBe(false);
  });
});
