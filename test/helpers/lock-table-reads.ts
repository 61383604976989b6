import type { RunningRecap } from '../../src/main.js';
import { storeOperations } from './store-operations.js';

/**
 * How many times recap has read conversations' lock tables: a request claiming a compaction reads
 * its table once, one waiting for another's compaction polls it, so two reads more than before a
 * request was sent show it waiting (single-flight.ts).
 */
export function lockTableReads(recap: RunningRecap): Promise<number> {
  return storeOperations(recap, 'read_locks');
}
