import { setTimeout as sleep } from 'node:timers/promises';
import { holdersAhead } from '../store/checkpoints.js';
import type { ConversationKey, LockClaim, LockHolder, LockTable } from '../store/store.js';
import { type HeldClaim, holdLease, LEASE_MS } from './lease.js';
import type { Records } from './records.js';

// One summarizer call per boundary (rule 9), per branch. A compaction claims the prefix its
// checkpoint will be about, in the conversation's lock table; a request whose own messages start
// with a claimed prefix (past what it already has) waits for that checkpoint instead of making
// its own, while a request of another branch (the same opening, another continuation) claims its
// own prefix and never waits. Taking a lock reports, in the same step, every lock held at that
// moment: a request that finds one of its own branch among them lets go of its own and waits, so
// of two requests of one branch the later always sees the earlier, while claims on other branches
// never stand in its way. (The claim used to be a compare-and-set on the whole table, which
// dozens of concurrent branches kept losing to each other until they degraded.) The lock only
// saves summarizer calls; versioned writes keep records correct.

const POLL_MS = 25;

export type ClaimResult =
  /** Held as a lease (lease.ts): renewed until released, lapsing soon after its holder died. */
  | { kind: 'held'; claim: HeldClaim }
  /** Compactions running whose checkpoint this request will be able to use. */
  | { kind: 'wait'; holders: LockHolder[] }
  | { kind: 'unavailable' };

/**
 * Claims `claim` for a request whose chain links are `links` and whose base's summary covers its
 * first `basePrefix` items, unless a compaction ahead of that on its branch is already running.
 */
export async function claimCompaction(records: Records, key: ConversationKey, claim: LockClaim, links: readonly string[], basePrefix: number): Promise<ClaimResult> {
  // A compaction already running on the branch is waited for without writing to the table.
  const table = await records.readLocks(key);
  if (table === 'unavailable') return { kind: 'unavailable' };
  const running = holdersAhead(table.holders, links, basePrefix);
  if (running.length > 0) return { kind: 'wait', holders: running };
  const grant = await records.tryLock(key, claim, LEASE_MS);
  if (grant === 'unavailable') return { kind: 'unavailable' };
  const ahead = holdersAhead(grant.earlier, links, basePrefix);
  if (grant.token !== null && ahead.length === 0) return { kind: 'held', claim: holdLease(records, key, claim.id, grant.token) };
  // Claimed meanwhile on this branch (this very prefix, when the lock was refused): that one goes first.
  if (grant.token !== null) await records.unlock(key, claim.id, grant.token);
  return { kind: 'wait', holders: ahead };
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
