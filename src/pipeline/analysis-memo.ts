import type { NeutralItem } from '../compaction/items.js';
import type { Segmentation } from '../compaction/units.js';
import type { ModelConfig } from '../config/config.js';
import type { Checkpoint } from '../store/store.js';

// What the last analysis of a conversation in this process worked out from its items alone (their
// neutral descriptions, units and rounds, hash-chain links), for the next request of the
// conversation to take over when it starts with the very same item objects (an item seen before
// comes back as the same object for the same bytes, body/seen-items.ts; recap never changes one):
// that request then works over what it adds, not its whole history. Only a cache: a request that
// finds nothing here (another replica, an evicted entry, an edited history) works it all out and
// decides the same. Bounded by entries and by the bytes of the requests they come from.

export interface Memo {
  items: readonly object[];
  neutral: readonly NeutralItem[];
  /** Each item's tokens, as that request counted them. */
  tokens: readonly number[];
  seg: Segmentation;
  /** The links of the items after the pinned block, once that request worked them out. */
  links?: string[];
  /** The view that request was forwarded with, for the next request to take over (decision-memo.ts). */
  decision?: DecisionNote;
  /** The same decision, when the next request may go upstream on it before its record is read (reuse-first.ts). */
  reuseFirst?: ReuseFirstNote;
  /**
   * recap's summary items by their text (the conversation's summaries, sealed for its tenant and
   * recall offer), shared by its requests: one object per summary, whose count and bytes are kept.
   */
  summaryItems: Map<string, object>;
  recall: boolean;
}

/** The last forward decision of a conversation, for its next request to take over (decision-memo.ts). */
export interface DecisionNote {
  model: ModelConfig;
  recall: boolean;
  pinnedCount: number;
  summaryIndex: number | null;
  fixedTokens: number;
  /** Items after the pinned block of the request it was made for. */
  restLength: number;
  /** The candidates (choose-view.ts), least compacted first: a checkpoint's identity and its view's tokens. */
  candidates: { checkpoint: string | null; tokens: number }[];
  /** The candidate forwarded: never the client's own view (nothing to take over there). */
  chosen: number;
  /** The stored checkpoints behind `candidates` after the first, as the record held them. */
  checkpoints: readonly Checkpoint[];
  /** What went upstream. */
  view: readonly unknown[];
}

/** A decision note whose record was read in this process, and what the request it was made for sent besides its items. */
export interface ReuseFirstNote {
  note: DecisionNote;
  /** The request's bytes before and after its items' array: another request with the same has the same budget, tools and recall offer. */
  outside: readonly [Buffer, Buffer];
  /** The budgets its views were planned against: every view's, and the client's own (prepare-input.ts viewBudgets). */
  lines: { view: number; own: number };
  /** Whether the view went with recap_recall, and whether the model had recall on (`recap eval` turns it off and on between requests). */
  recall: boolean;
  recallEnabled: boolean;
  /** The record read it was made from: when it was issued, in the write sequence `writes` (write-sequence.ts), and in ms; the version it found. */
  writes: object;
  seq: number;
  readAt: number;
  version: number;
}

export interface AnalysisMemos {
  /** The memo of the key's last request, when this request starts with all of its items. */
  prior(key: string, items: readonly object[]): Memo | undefined;
  /** The memo of the key's last request, whatever this request holds. */
  latest(key: string): Memo | undefined;
  /** Whether any memo's request starts with `first` (the same object): a request starting otherwise has none to find. */
  startsWith(first: object | undefined): boolean;
  remember(key: string, memo: Memo, bytes: number): void;
}

/** How many items `items` starts with of `last` (the same objects): a pointer compare per item, far cheaper than any of what it saves. */
export function sharedLength(last: readonly object[], items: readonly object[]): number {
  const n = Math.min(last.length, items.length);
  let i = 0;
  while (i < n && last[i] === items[i]) i++;
  return i;
}

export function createAnalysisMemos(bound: { entries: number; bytes: number }): AnalysisMemos {
  // A map keeps insertion order: the first entry is the least recently remembered.
  const memos = new Map<string, { memo: Memo; bytes: number }>();
  let bytesHeld = 0;
  const drop = (key: string) => {
    const entry = memos.get(key);
    if (!entry) return;
    memos.delete(key);
    bytesHeld -= entry.bytes;
  };
  return {
    prior(key, items) {
      const memo = memos.get(key)?.memo;
      return memo && sharedLength(memo.items, items) === memo.items.length ? memo : undefined;
    },
    latest: (key) => memos.get(key)?.memo,
    startsWith(first) {
      if (first === undefined) return false;
      for (const { memo } of memos.values()) if (memo.items[0] === first) return true;
      return false;
    },
    remember(key, memo, bytes) {
      drop(key);
      if (bytes > bound.bytes) return;
      memos.set(key, { memo, bytes });
      bytesHeld += bytes;
      for (const oldest of memos.keys()) {
        if (memos.size <= bound.entries && bytesHeld <= bound.bytes) break;
        drop(oldest);
      }
    },
  };
}

/** This process's memos: a hot conversation's last request each, a few dozen MB of bodies at most. */
export const ANALYSIS_MEMOS = createAnalysisMemos({ entries: 64, bytes: 32 * 2 ** 20 });
