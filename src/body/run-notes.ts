import type { TakenRun } from './item-runs.js';

// What the request path works out per item (shape check, canonical hash, exact token count) is
// noted on the request's run, aligned with its items, so that a later request that takes the run
// over reads it for those items at once instead of looking it up item by item. A note is keyed by
// who made it (the check function, the counter), since each reads its own.

export interface RunNotes {
  /** How many leading items were taken over from an earlier request's run (0: none). */
  readonly taken: number;
  /** What `key` noted on that run, for its items in order (at least `taken` of them), if it did. */
  earlier<V>(key: object): V | undefined;
  /** Notes `value` (about this request's items, in order) for later requests that start the same way. */
  note(key: object, value: unknown): void;
}

export const NO_RUN: RunNotes = { taken: 0, earlier: () => undefined, note: () => undefined };

/** `notes`: the notes of the run the request's items make (item-runs.ts RunBuilder.made), which may be made after them. */
export function runNotes(taken: TakenRun | undefined, notes: Map<object, unknown>): RunNotes {
  return {
    taken: taken?.count ?? 0,
    earlier: <V>(key: object) => taken?.run.notes.get(key) as V | undefined,
    note(key, value) {
      notes.set(key, value);
    },
  };
}

/**
 * A note key per object (a counter, say) for one maker: each wire route keeps the counts it makes
 * under its own key, since the same item object counts differently as a chat message.
 */
export function noteKeys<K extends object>(): (of: K) => object {
  const keys = new WeakMap<K, object>();
  return (of) => {
    let key = keys.get(of);
    if (key === undefined) {
      key = {};
      keys.set(of, key);
    }
    return key;
  };
}
