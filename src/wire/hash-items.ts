import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { jsonItemHash } from '../conversation/canonical.js';

// Items that carry no hash of their own (Responses items, Anthropic messages) are hashed from their
// JSON, yielding to the event loop every half millisecond so that a long history never holds it.
const HASH_SLICE_MS = 0.5;

export async function hashJsonItems(items: readonly Record<string, unknown>[]): Promise<string[]> {
  const hashes: string[] = [];
  let sliceStart = performance.now();
  for (const item of items) {
    hashes.push(jsonItemHash(item));
    if (performance.now() - sliceStart > HASH_SLICE_MS) {
      await nextMacrotask();
      sliceStart = performance.now();
    }
  }
  return hashes;
}
