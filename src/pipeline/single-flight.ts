import { setTimeout as sleep } from 'node:timers/promises';
import { holdersAhead } from '../store/checkpoints.js';
import type { ConversationKey, LockClaim, LockHolder, LockTable } from '../store/store.js';
import type { Records } from './records.js';

// One summarizer call per boundary (rule 9), per branch. A compaction claims the prefix its
// checkpoint will be about, in the conversation's lock table; a request whose own messages start
// with a claimed prefix (past what it already has) waits for that checkpoint instead of making
// its own, while a request of another branch (the same opening, another continuation) claims its
// own prefix and never waits. Claims are compare-and-set on the table's version, so two requests
// of one branch cannot both miss each other. The lock only saves summarizer calls; versioned
// writes keep records correct.

const POLL_MS = 25;
/** Reads and claims that lost a race with another claim, before giving up (rare: each loss means progress elsewhere). */
const CLAIM_ATTEMPTS = 5;
/** The lock outlives the summarizer's own timeout by this much; it expires by itself if its holder dies. */
const LOCK_MARGIN_MS = 5_000;

export type ClaimResult =
  | { kind: 'held'; token: string }
  /** Compactions running whose checkpoint this request will be able to use. */
  | { kind: 'wait'; holders: LockHolder[] }
  | { kind: 'unavailable' }
  | { kind: 'contended' };

export function lockTtl(summarizerTimeoutMs: number): number {
  return summarizerTimeoutMs + LOCK_MARGIN_MS;
}

/**
 * Claims `claim` for a request whose chain links are `links` and whose base's summary covers its
 * first `basePrefix` items, unless a compaction ahead of that on its branch is already running.
 */
export async function claimCompaction(records: Records, key: ConversationKey, claim: LockClaim, links: readonly string[], basePrefix: number, ttlMs: number): Promise<ClaimResult> {
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const table = await records.readLocks(key);
    if (table === 'unavailable') return { kind: 'unavailable' };
    const ahead = holdersAhead(table.holders, links, basePrefix);
    if (ahead.length > 0) return { kind: 'wait', holders: ahead };
    const token = await records.tryLock(key, claim, ttlMs, table.version);
    if (token === 'unavailable') return { kind: 'unavailable' };
    if (token !== null) return { kind: 'held', token };
  }
  return { kind: 'contended' };
}

// Requests of one process waiting on one conversation share each read of its lock table, so a
// burst of waiters costs the store one read per poll, not one each.
const reading = new Map<string, Promise<LockTable | 'unavailable'>>();

function sharedRead(records: Records, key: ConversationKey): Promise<LockTable | 'unavailable'> {
  const id = `${key.tenant}.${key.conversation}`;
  let read = reading.get(id);
  if (!read) {
    read = records.readLocks(key).finally(() => reading.delete(id));
    reading.set(id, read);
  }
  return read;
}

/**
 * Waits until none of `holders` holds its lock any more; false when `deadline` (ms epoch) came
 * first or `signal` aborted. A store that does not answer is not taken for a released lock.
 */
export async function waitForHolders(records: Records, key: ConversationKey, holders: readonly LockHolder[], deadline: number, signal?: AbortSignal): Promise<boolean> {
  const tokens = new Set(holders.map((h) => h.token));
  while (Date.now() < deadline) {
    if (signal?.aborted) return false;
    const table = await sharedRead(records, key);
    if (table !== 'unavailable' && !table.holders.some((h) => tokens.has(h.token))) return true;
    await sleep(POLL_MS, undefined, { ref: false });
  }
  return false;
}
