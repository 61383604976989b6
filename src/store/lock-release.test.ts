import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { newLockToken, ReleaseRetries } from './lock-release.js';

// Retrying a failed lock release: bounded by the lock's own expiry, ended by success or close.

describe('ReleaseRetries', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const failing = () => vi.fn(() => Promise.reject(new Error('down')));

  it('retries a failing release until the lock would have expired, then stops', async () => {
    const retries = new ReleaseRetries();
    const release = failing();
    retries.retry(newLockToken(2_000), release);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(release.mock.calls.length).toBe(4);
  });

  it('stops at the first release that gets through', async () => {
    const retries = new ReleaseRetries();
    const release = vi.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(undefined);
    retries.retry(newLockToken(60_000), release);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(release).toHaveBeenCalledTimes(2);
  });

  it('stops when closed', async () => {
    const retries = new ReleaseRetries();
    const release = failing();
    retries.retry(newLockToken(60_000), release);
    await vi.advanceTimersByTimeAsync(1_000);
    retries.close();
    const calls = release.mock.calls.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(release.mock.calls.length).toBe(calls);
    expect(calls).toBeGreaterThan(0);
  });
});
