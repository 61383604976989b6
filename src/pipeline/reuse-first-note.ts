import type { ConversationKey, ConversationRecord } from '../store/store.js';
import type { Analysis } from './analyze.js';
import { type RecordRead, readRecord } from './early-record.js';
import type { PipelineDeps } from './pipeline-deps.js';
import type { ReusedFirst } from './reuse-first.js';
import type { RoutePlan } from './route-plan.js';

// What a request leaves its conversation's next request to go upstream on (reuse-first.ts): its
// decision, the bytes it sent outside its items, its budgets, and the record read the decision's
// checkpoints were last found in. A request planned first notes the read it was planned from. One
// that went first itself passes on the read its own note came from while its record is read
// after its reply; that read, a failed turn or a request given up take the note back, and a read
// that finds the record changed elsewhere takes back every note of the conversation from before it.

type LoadedRecord = ConversationRecord | null | 'unavailable';

export interface ReuseFirstNoting<T> {
  a: Analysis<T>;
  /** Where the conversation's record is kept. */
  key: ConversationKey;
  /** The record read issued for the request before it was planned, if any. */
  read: RecordRead | undefined;
  /** The request's bytes outside its items, copied. */
  outside: (() => readonly [Buffer, Buffer] | null) | undefined;
  lines: { view: number; own: number };
  /** Whether the view went with recap_recall. */
  recall: boolean;
  /** The request went upstream on its last decision: how to tell whether a record read still holds its checkpoints. */
  first?: { went: ReusedFirst; verify: (record: Promise<LoadedRecord>) => Promise<boolean> };
}

/** `plan`, its request's decision noted for the next request to go first on. */
export function notingReuseFirst<T>(deps: PipelineDeps, plan: RoutePlan<T>, n: ReuseFirstNoting<T>): RoutePlan<T> {
  const { a } = n;
  const note = (read: Pick<RecordRead, 'seq' | 'at'> | undefined) => {
    const decision = a.memo.decision;
    const outside = decision && read ? n.outside?.() : null;
    if (!decision || !read || !outside) return;
    const writes = deps.records.writes;
    a.memo.reuseFirst = { note: decision, outside, lines: n.lines, recall: n.recall, recallEnabled: decision.model.recall.enabled, writes, seq: read.seq, readAt: read.at };
  };
  const { first } = n;
  if (!first) {
    note(n.read);
    return plan;
  }
  note({ seq: first.went.note.seq, at: first.went.note.readAt });
  const drop = () => {
    a.memo.reuseFirst = undefined;
  };
  return {
    ...plan,
    async afterSuccess(status, observer) {
      const priced = await plan.afterSuccess(status, observer);
      if (status < 200 || status >= 300) {
        drop();
        return priced;
      }
      // Read once the reply is out, unless it was read as the request arrived.
      const read = n.read ?? readRecord(deps.records, n.key);
      void first.verify(read.record).then((same) => {
        if (same) return note(read);
        drop();
        deps.records.writes.mark(n.key);
      });
      return priced;
    },
    async abandon() {
      drop();
      await plan.abandon();
    },
  };
}
