import { describe, expect, it } from 'vitest';
import { RESTART_BASE_MS, RESTART_CAP_MS, restartDelay } from './restart-delay.js';

describe('restartDelay', () => {
  it('replaces a worker that served at once', () => {
    expect(restartDelay(0)).toBe(0);
  });

  it('doubles with each start that failed in a row, up to the cap', () => {
    expect([1, 2, 3, 4].map(restartDelay)).toEqual([RESTART_BASE_MS, 2 * RESTART_BASE_MS, 4 * RESTART_BASE_MS, 8 * RESTART_BASE_MS]);
    expect(restartDelay(7)).toBe(RESTART_CAP_MS);
    expect(restartDelay(10_000)).toBe(RESTART_CAP_MS);
  });
});
