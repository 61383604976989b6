import { setTimeout as sleep } from 'node:timers/promises';
import type { ConversationKey } from '../store/store.js';
import type { Records } from './records.js';

// One summarizer call per boundary (rule 9): the compaction lock of a conversation is held by the
// request (or background job) that summarizes; the others wait for it to go away and then reread
// the record. The lock only saves summarizer calls; the versioned write keeps records correct.

const COMPACTION_LOCK = 'compaction';
const POLL_MS = 25;

export type LockResult = { held: true; token: string } | { held: false; reason: 'busy' | 'unavailable' };

// The lock outlives the summarizer's own timeout by this much (the holder writes the checkpoint once
// its reply reached the client); it expires by itself if its holder dies. A reply that takes longer
// than that lets a waiter summarize the same span again: one extra call, never a wrong record.
const LOCK_MARGIN_MS = 30_000;

export async function acquireCompactionLock(records: Records, key: ConversationKey, summarizerTimeoutMs: number): Promise<LockResult> {
  const token = await records.tryLock(key, COMPACTION_LOCK, summarizerTimeoutMs + LOCK_MARGIN_MS);
  if (token === 'unavailable') return { held: false, reason: 'unavailable' };
  return token ? { held: true, token } : { held: false, reason: 'busy' };
}

export function releaseCompactionLock(records: Records, key: ConversationKey, token: string): Promise<void> {
  return records.unlock(key, COMPACTION_LOCK, token);
}

/** Waits until nobody holds the conversation's compaction lock; false when `waitMs` ran out. */
export async function waitForCompaction(records: Records, key: ConversationKey, waitMs: number, signal?: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    if (signal?.aborted) return false;
    if (!(await records.isLocked(key, COMPACTION_LOCK))) return true;
    await sleep(POLL_MS, undefined, { ref: false });
  }
  return false;
}
