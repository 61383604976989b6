import type { ChatMessage } from '../messages/types.js';

// What a checkpoint took out of recap's view, read from the inspection endpoint: the messages its
// summary took in (covered, except those kept verbatim after it) and the tool results it cleared
// (their content replaced by a stub). Both are evicted content the model can only recall through
// what recap left; the rest (pinned, kept, uncovered, and the calls of cleared results) is still
// seen verbatim.

export type Eviction = 'summarized' | 'cleared';

export interface InspectedCheckpoint {
  covered_messages: number;
  kept_messages?: number[];
  cleared_messages?: number[];
  summary_tokens: number;
}

export interface EvictedView {
  /** The evicted messages, in conversation order, each with how it was evicted. */
  evicted: { message: ChatMessage; how: Eviction }[];
  /** What the model still sees verbatim. */
  kept: ChatMessage[];
}

/** Checkpoint indices count from the first message after the `pinned` leading ones. */
export function evictedBy(messages: readonly ChatMessage[], pinned: number, cp: InspectedCheckpoint): EvictedView {
  const keptVerbatim = new Set(cp.kept_messages ?? []);
  const cleared = new Set(cp.cleared_messages ?? []);
  const evicted: EvictedView['evicted'] = [];
  const kept: ChatMessage[] = messages.slice(0, pinned);
  messages.slice(pinned).forEach((message, i) => {
    if (i < cp.covered_messages && !keptVerbatim.has(i)) evicted.push({ message, how: 'summarized' });
    else if (cleared.has(i)) evicted.push({ message, how: 'cleared' });
    else kept.push(message);
  });
  return { evicted, kept };
}

/** The checkpoint that did the most: the one a conversation's single compaction made. */
export function furthest<T extends InspectedCheckpoint>(checkpoints: readonly T[]): T | undefined {
  return [...checkpoints].sort((a, b) => b.covered_messages - a.covered_messages || (b.cleared_messages?.length ?? 0) - (a.cleared_messages?.length ?? 0))[0];
}
