import type { RunningRecap } from '../../src/main.js';

/** How many store operations `op` (`load`, `read_locks`, …) recap has made: the count of recap_store_duration_seconds. */
export async function storeOperations(recap: RunningRecap, op: string): Promise<number> {
  const { values } = await recap.runtime.metrics.storeDuration.get();
  return values.find((v) => v.metricName === 'recap_store_duration_seconds_count' && v.labels.op === op)?.value ?? 0;
}
