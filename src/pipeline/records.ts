import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { traceStore } from '../tracing/spans.js';
import { type Checkpoint, type ConversationKey, type ConversationRecord, type Store, StoreUnavailableError } from '../store/store.js';

// The store as the request path sees it: every failure is absorbed (logged, counted) and turned
// into "no record" / "not written", so that a store outage never fails or hangs a request (rule 8).

export interface Records {
  readonly store: Store;
  /** The record, null when there is none, or 'unavailable' when the store could not answer. */
  load(key: ConversationKey): Promise<ConversationRecord | null | 'unavailable'>;
  /** Compare-and-set write; false when another writer won or the store is down. */
  add(key: ConversationKey, checkpoint: Checkpoint, expectedVersion: number): Promise<boolean>;
  tryLock(key: ConversationKey, boundary: string, ttlMs: number): Promise<string | null | 'unavailable'>;
  unlock(key: ConversationKey, boundary: string, token: string): Promise<void>;
  isLocked(key: ConversationKey, boundary: string): Promise<boolean>;
  /** Deletes the record; whether one existed, or 'unavailable'. */
  forget(key: ConversationKey): Promise<boolean | 'unavailable'>;
}

export function createRecords(store: Store, metrics: Metrics, logger: Logger): Records {
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
  return {
    store,
    load: (key) => guarded<ConversationRecord | null | 'unavailable'>('load', () => store.load(key), 'unavailable'),
    add: (key, cp, version) => guarded('add_checkpoint', async () => (await store.addCheckpoint(key, cp, version)).ok, false),
    tryLock: (key, boundary, ttl) => guarded<string | null | 'unavailable'>('lock', () => store.tryLock(key, boundary, ttl), 'unavailable'),
    unlock: (key, boundary, token) => guarded('unlock', () => store.unlock(key, boundary, token), undefined),
    isLocked: (key, boundary) => guarded('is_locked', () => store.isLocked(key, boundary), false),
    forget: (key) => guarded<boolean | 'unavailable'>('delete', () => store.delete(key), 'unavailable'),
  };
}
