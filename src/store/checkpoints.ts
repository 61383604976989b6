import type { Checkpoint, ConversationRecord } from './store.js';

// Pure checkpoint-list logic, shared by both stores so they cannot drift apart.

/**
 * The checkpoint covering the longest prefix that the request still starts with (DESIGN rule 6).
 * `chainLinks[i]` is the chain link of the first i+1 messages after the pinned ones; an edited or
 * branched history falls back to an older checkpoint whose link still matches, or to none.
 */
export function findLongestMatch(record: ConversationRecord | null, chainLinks: readonly string[]): Checkpoint | undefined {
  if (!record) return undefined;
  let best: Checkpoint | undefined;
  for (const cp of record.checkpoints) {
    if (cp.covered < 1 || cp.covered > chainLinks.length) continue;
    if (chainLinks[cp.covered - 1] !== cp.chainHash) continue;
    if (!best || cp.covered > best.covered) best = cp;
  }
  return best;
}

/**
 * The list after adding `checkpoint`: a checkpoint of the same prefix (covered + chainHash) is
 * replaced, the list is sorted by covered, and only the `max` largest are kept, since the newest
 * requests are the ones that match the longest prefixes.
 */
export function mergeCheckpoint(list: readonly Checkpoint[], checkpoint: Checkpoint, max: number): Checkpoint[] {
  const merged = list.filter((cp) => cp.covered !== checkpoint.covered || cp.chainHash !== checkpoint.chainHash);
  merged.push(checkpoint);
  merged.sort((a, b) => a.covered - b.covered || a.createdAt - b.createdAt);
  return merged.slice(-max);
}
