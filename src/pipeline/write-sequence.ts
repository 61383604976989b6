import type { ConversationKey } from '../store/store.js';

// The writes this process makes to conversations' records, numbered: a read issued at number s
// saw every one of them that ended before s (the store orders one conversation's commands), so
// what was decided from that read still holds for the conversation unless it was written since
// (reuse-first.ts). A key forgotten (the map is bounded) counts as written at the highest number
// forgotten: an answer can only be too cautious, never miss a write.

export interface WriteSequence {
  /** The number of the next write: what a read issued now is stamped with. */
  now(): number;
  /** A write of `key` starts or ends, or a change made elsewhere was found. */
  mark(key: ConversationKey): void;
  /** Whether a write of `key` started or ended at or after `seq`. */
  writtenSince(key: ConversationKey, seq: number): boolean;
}

export function createWriteSequence(entries: number): WriteSequence {
  let next = 1;
  let forgotten = 0;
  // Insertion order: the first is the least recently written.
  const last = new Map<string, number>();
  const slot = (key: ConversationKey) => `${key.tenant}\n${key.conversation}`;
  return {
    now: () => next,
    mark(key) {
      const s = slot(key);
      last.delete(s);
      last.set(s, next++);
      if (last.size <= entries) return;
      const [oldest, seq] = last.entries().next().value as [string, number];
      last.delete(oldest);
      forgotten = Math.max(forgotten, seq);
    },
    writtenSince(key, seq) {
      return (last.get(slot(key)) ?? forgotten) >= seq;
    },
  };
}
