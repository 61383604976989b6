import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { jsonItemHash } from '../conversation/canonical.js';

// Items that carry no hash of their own (Responses items, Anthropic messages) are hashed from their
// JSON, yielding to the event loop every half millisecond so that a long history never holds it.
const HASH_SLICE_MS = 0.5;

/** `earlier`: the hashes of the first `from` items, known already (body/run-notes.ts). */
export async function hashJsonItems(items: readonly Record<string, unknown>[], from = 0, earlier?: readonly string[]): Promise<string[]> {
  const hashes: string[] = earlier ? earlier.slice(0, from) : [];
  let sliceStart = performance.now();
  for (let i = hashes.length; i < items.length; i++) {
    hashes.push(jsonItemHash(items[i]!));
    if (performance.now() - sliceStart > HASH_SLICE_MS) {
      await nextMacrotask();
      sliceStart = performance.now();
    }
  }
  return hashes;
}
