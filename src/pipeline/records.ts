import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { addEdit, applies, confirmEdit, discardEdit, type RecordBound } from '../store/checkpoints.js';
import {
  type Checkpoint,
  type ConversationKey,
  type ConversationRecord,
  type LockClaim,
  type LockGrant,
  type LockTable,
  type Store,
  StoreUnavailableError,
} from '../store/store.js';
import { traceStore } from '../tracing/spans.js';
import { createWriteSequence, type WriteSequence } from './write-sequence.js';

// The store as the request path sees it: every failure is absorbed (logged, counted) and turned
// into "no record" / "not written", so that a store outage never fails or hangs a request (rule 8).
// Checkpoints are written as edits of the stored list: an add or a confirmation lands whatever else
// was written meanwhile, bounded per branch (the branch is what the writer's request starts with).

export interface Records {
  readonly store: Store;
  /** The record, null when there is none, or 'unavailable' when the store could not answer. */
  load(key: ConversationKey): Promise<ConversationRecord | null | 'unavailable'>;
  /** The record's version alone (0: none), or 'unavailable'; refreshes its TTL as load does. */
  loadVersion(key: ConversationKey): Promise<number | 'unavailable'>;
  /** Stores a checkpoint of the request whose chain links are `links`; false when it could not. */
  add(key: ConversationKey, checkpoint: Checkpoint, links: readonly string[]): Promise<boolean>;
  /** A turn that used a provisional checkpoint got its 2xx: it stays for good. */
  confirm(key: ConversationKey, checkpoint: Checkpoint, links: readonly string[]): Promise<boolean>;
  /** The failed turn that made a provisional checkpoint takes it back (unless a turn confirmed it). */
  discard(key: ConversationKey, pendingToken: string): Promise<boolean>;
  readLocks(key: ConversationKey): Promise<LockTable | 'unavailable'>;
  tryLock(key: ConversationKey, claim: LockClaim, ttlMs: number): Promise<LockGrant | 'unavailable'>;
  /** Whether the lease was extended: false when the lock is no longer the caller's. */
  renewLock(key: ConversationKey, id: string, token: string, ttlMs: number): Promise<boolean | 'unavailable'>;
  unlock(key: ConversationKey, id: string, token: string): Promise<void>;
  /** Deletes the record; whether one existed, or 'unavailable'. */
  forget(key: ConversationKey): Promise<boolean | 'unavailable'>;
  /** This process's writes of records, and changes it found made elsewhere, numbered (write-sequence.ts). */
  readonly writes: WriteSequence;
}

/** Conversations whose last write this process remembers: beyond them a write is assumed. */
const WRITES_REMEMBERED = 16_384;

export function createRecords(store: Store, metrics: Metrics, logger: Logger, bound: RecordBound): Records {
  async function guarded<T>(op: string, work: () => Promise<T>, fallback: T): Promise<T> {
    const end = metrics.storeDuration.startTimer({ op });
    try {
      return await traceStore(store.kind, op, work);
    } catch (err) {
      metrics.storeErrors.inc({ op });
      if (!(err instanceof StoreUnavailableError)) logger.error({ err, op }, 'store operation failed');
      return fallback;
    } finally {
      end();
    }
  }
  const onBranchOf = (links: readonly string[]) => (cp: Checkpoint) => applies(cp, links);
  const writes = createWriteSequence(WRITES_REMEMBERED);
  /** A write, numbered as it starts and as it ends, however it ends. */
  async function written<T>(key: ConversationKey, write: () => Promise<T>): Promise<T> {
    writes.mark(key);
    try {
      return await write();
    } finally {
      writes.mark(key);
    }
  }
  return {
    store,
    writes,
    load: (key) => guarded<ConversationRecord | null | 'unavailable'>('load', () => store.load(key), 'unavailable'),
    loadVersion: (key) => guarded<number | 'unavailable'>('load_version', () => store.loadVersion(key), 'unavailable'),
    add: (key, cp, links) => written(key, () => guarded('add_checkpoint', async () => (await store.updateCheckpoints(key, addEdit(cp, bound, onBranchOf(links)))).ok, false)),
    confirm: (key, cp, links) =>
      written(key, () => guarded('confirm_checkpoint', async () => (await store.updateCheckpoints(key, confirmEdit(cp, bound, onBranchOf(links)))).ok, false)),
    discard: (key, token) => written(key, () => guarded('discard_checkpoint', async () => (await store.updateCheckpoints(key, discardEdit(token))).ok, false)),
    readLocks: (key) => guarded<LockTable | 'unavailable'>('read_locks', () => store.readLocks(key), 'unavailable'),
    tryLock: (key, claim, ttl) => guarded<LockGrant | 'unavailable'>('lock', () => store.tryLock(key, claim, ttl), 'unavailable'),
    renewLock: (key, id, token, ttl) => guarded<boolean | 'unavailable'>('renew_lock', () => store.renewLock(key, id, token, ttl), 'unavailable'),
    unlock: (key, id, token) => guarded('unlock', () => store.unlock(key, id, token), undefined),
    forget: (key) => written(key, () => guarded<boolean | 'unavailable'>('delete', () => store.delete(key), 'unavailable')),
  };
}
