import type { ConversationKey, ConversationRecord } from '../store/store.js';
import type { Analysis } from './analyze.js';
import { type RecordRead, readVersion } from './early-record.js';
import type { PipelineDeps } from './pipeline-deps.js';
import type { ReusedFirst } from './reuse-first.js';
import type { RoutePlan } from './route-plan.js';

// What a request leaves its conversation's next request to go upstream on (reuse-first.ts): its
// decision, the bytes it sent outside its items, its budgets, and the record read the decision's
// checkpoints were last found in (when it was issued, and the record's version). A request
// planned first notes the read it was planned from. One that went first itself passes on the read
// its own note came from while the record's version is read after its reply: the same version
// (every write bumps it) means the same checkpoints, and that read stamps the note anew; another
// version, a failed turn or a request given up take the note back, and a version changed
// elsewhere takes back every note of the conversation from before it. The version alone is read:
// the checkpoints are neither sent by the store nor parsed again, and its TTL is refreshed as a
// load refreshes it. One that wrote its record after its reply notes its items decided again
// against the record read whole once that write is done (decide-after-write.ts).

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
  /** The request went upstream on its last decision; `stands`: its plan took that decision over. */
  first?: { went: ReusedFirst; stands: boolean };
  /**
   * Set when the request writes its record after a 2xx (decide-after-write.ts): decides its items
   * again against the record as written, noting the decision; whether its view would go with recap_recall.
   */
  afterWrite?: (record: ConversationRecord) => Promise<{ recall: boolean } | undefined>;
}

type Stamp = { seq: number; at: number; version: number };

/** The version a record read found, or undefined when it found none. */
async function versionOf(read: RecordRead): Promise<number | undefined> {
  const record = await read.record;
  return record === null || record === 'unavailable' ? undefined : record.version;
}

/** `plan`, its request's decision noted for the next request to go first on. */
export async function notingReuseFirst<T>(deps: PipelineDeps, plan: RoutePlan<T>, n: ReuseFirstNoting<T>): Promise<RoutePlan<T>> {
  const { a } = n;
  const note = (stamp: Stamp | undefined, recall = n.recall) => {
    const decision = a.memo.decision;
    const outside = decision && stamp ? n.outside?.() : null;
    if (!decision || !stamp || !outside) return;
    const writes = deps.records.writes;
    a.memo.reuseFirst = {
      note: decision,
      outside,
      lines: n.lines,
      recall,
      recallEnabled: decision.model.recall.enabled,
      writes,
      seq: stamp.seq,
      readAt: stamp.at,
      version: stamp.version,
    };
  };
  const { first, afterWrite } = n;
  if (afterWrite) {
    return {
      ...plan,
      async afterSuccess(status, observer) {
        // The write is done once the plan's part is: the record read after it holds it. The reply
        // is out; the request's log line and event wait for this, the next request does not.
        const priced = await plan.afterSuccess(status, observer);
        if (status >= 200 && status < 300) {
          await noteAfterWrite(deps, n.key, afterWrite, note).catch((err: unknown) => deps.logger.error({ err }, 'deciding again after a write failed'));
        }
        return priced;
      },
    };
  }
  if (!first) {
    // The read the decision was made from is in already.
    const version = n.read && (await versionOf(n.read));
    note(n.read && version !== undefined ? { seq: n.read.seq, at: n.read.at, version } : undefined);
    return plan;
  }
  const drop = () => {
    a.memo.reuseFirst = undefined;
  };
  const inherited = first.went.note;
  if (first.stands) note({ seq: inherited.seq, at: inherited.readAt, version: inherited.version });
  else drop();
  return {
    ...plan,
    async afterSuccess(status, observer) {
      const priced = await plan.afterSuccess(status, observer);
      if (status < 200 || status >= 300 || !first.stands) {
        drop();
        return priced;
      }
      // Read once the reply is out, unless the whole record was read as the request arrived.
      const early = n.read;
      const read = early ? { seq: early.seq, at: early.at, version: versionOf(early) } : readVersion(deps.records, n.key);
      void read.version.then((version) => {
        if (version === inherited.version) return note({ seq: read.seq, at: read.at, version });
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

/** Reads the record a request wrote, whole, and notes the request's items decided again against it, stamped with that read. */
async function noteAfterWrite(
  deps: PipelineDeps,
  key: ConversationKey,
  afterWrite: NonNullable<ReuseFirstNoting<unknown>['afterWrite']>,
  note: (stamp: Stamp, recall: boolean) => void,
): Promise<void> {
  const seq = deps.records.writes.now();
  const at = Date.now();
  const record = await deps.records.load(key);
  if (record === null || record === 'unavailable') return;
  const again = await afterWrite(record);
  if (again) note({ seq, at, version: record.version }, again.recall);
}
