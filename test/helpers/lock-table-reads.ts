import type { RunningRecap } from '../../src/main.js';

/**
 * How many times recap has read conversations' lock tables: a request claiming a compaction reads
 * its table once, one waiting for another's compaction polls it, so two reads more than before a
 * request was sent show it waiting (single-flight.ts).
 */
export async function lockTableReads(recap: RunningRecap): Promise<number> {
  const { values } = await recap.runtime.metrics.storeDuration.get();
  return values.find((v) => v.metricName === 'recap_store_duration_seconds_count' && v.labels.op === 'read_locks')?.value ?? 0;
}
