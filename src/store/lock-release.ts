import { randomBytes } from 'node:crypto';

// A lock whose release could not reach Redis (down, frozen, failing over) would still block its
// conversation's compactions until its TTL if Redis comes back with its data (persistence, a
// promoted replica). So a failed release is retried in the background until it gets through or the
// lock has expired by itself. Running late is harmless: the release deletes the lock only while it
// still holds the caller's token.

const RETRY_MS = 500;

/** Random, prefixed by when the lock expires (this process's clock), so a failed release knows how long retrying can help. */
export function newLockToken(ttlMs: number): string {
  return `${Math.ceil(Date.now() + ttlMs)}.${randomBytes(16).toString('base64url')}`;
}

function expiryOf(token: string): number {
  return Number(token.slice(0, token.indexOf('.'))) || 0;
}

export class ReleaseRetries {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  /** Calls `release` every RETRY_MS until it resolves or the lock of `token` has expired. */
  retry(token: string, release: () => Promise<void>): void {
    if (this.closed || Date.now() >= expiryOf(token)) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      release().catch(() => this.retry(token, release));
    }, RETRY_MS);
    // Never keeps the process alive: the lock expires by itself anyway.
    timer.unref();
    this.timers.add(timer);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
