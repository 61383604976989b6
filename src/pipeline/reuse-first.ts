import type { Caller } from '../auth/caller.js';
import type { ModelConfig } from '../config/config.js';
import { type Identity, identifyBy, type NamedConversation } from '../conversation/identify.js';
import { isLive } from '../store/checkpoints.js';
import type { ConversationKey } from '../store/store.js';
import type { ParsedRequest, PromptBound, WireFormat } from '../wire/format.js';
import { ANALYSIS_MEMOS, type AnalysisMemos, type ReuseFirstNote, sharedLength } from './analysis-memo.js';
import { lowestTriggerRatio } from './cost-plan.js';
import { noteForPrefix, renamesAClearedResult } from './decision-memo.js';
import { type CountOnce, exactBound } from './count-once.js';
import type { Arrival } from './early-record.js';
import type { PathDeps } from './route-plan.js';
import { calibrates } from './token-service.js';

// A conversation past its trigger reuses one stored summary request after request, each adding a
// few items. Its request goes upstream before it is counted or its record is read when its view
// is provably the one its previous request's was plus the new items (decision-memo.ts takes the
// same decision over once counted, prepare.ts):
// - the checkpoints of that decision were found in a record read this process issued, none of the
//   conversation's records was written by this process since (write-sequence.ts), and their time
//   to live has not run out since (reuse-first-note.ts keeps that read's stamp);
// - this request starts with all of the previous one's items (the same objects), or with part of
//   them that the decision can be taken back to (a branch: decision-memo.ts noteForPrefix), and
//   has the same bytes outside its items (the same model, limits, tools and recall offer, hence
//   the same budget);
// - upper bounds of what the new items add (the format's prompt bound, as forward-first.ts uses it)
//   keep the view forwarded below the lowest trigger line it may be planned by, while the less
//   compacted candidates, which only grew, stay above the highest. Where the bytes of the new items
//   leave no such room (a tool result's text has several bytes a token), the request is counted
//   first (count-once.ts), and its count is the bound: the count its plan is then made with;
// - no new item calls with the id of a result the view may show as a stub (decision-memo.ts).
// Another replica may have written the record since: a checkpoint it added is further compacted
// and changes no choice (the least compacted candidate that fits wins); one it deleted is used
// until a read issued after the change completes (docs/design.md "One request").

/** A request that went upstream on its conversation's last decision: what prepare() plans it with. */
export interface ReusedFirst {
  identity: Identity;
  /** The view forwarded: the previous view, then the request's new items. */
  view: readonly unknown[];
  note: ReuseFirstNote;
  /** What went upstream. */
  body: Buffer;
}

export interface ReuseFirstInput<P> {
  caller: Caller;
  conversation: NamedConversation | undefined;
  arrival: Arrival | undefined;
  parsed: P;
  model: ModelConfig | undefined;
  /** The request's prompt bound (forward-first.ts promptBoundOnce). */
  bound: (model: ModelConfig) => PromptBound | null;
  /** The request's count, shared with its plan. */
  count: CountOnce<unknown>;
}

/** The bytes of `parsed` before and after its items' array, or null when its members are unknown. */
export function outsideItems(parsed: ParsedRequest, itemsKey: string): readonly [Buffer, Buffer] | null {
  const member = parsed.members?.find((m) => m.key === itemsKey);
  if (!member) return null;
  return [parsed.raw.subarray(0, member.value.start), parsed.raw.subarray(member.value.end)];
}

/** The request on its conversation's last decision, when that provably stands; undefined when it must be planned first. */
export async function reuseFirst<T, P extends ParsedRequest>(
  deps: PathDeps,
  format: WireFormat<T, P>,
  input: ReuseFirstInput<P>,
  memos: AnalysisMemos = ANALYSIS_MEMOS,
): Promise<ReusedFirst | undefined> {
  const { model, parsed } = input;
  if (!model || model.compaction.strategy === 'off' || model.compaction.mode === 'audit' || calibrates(model)) return undefined;
  const items = format.compactable(parsed);
  // Before working out who asks: a conversation this process has not analysed lately never hashes its opening here.
  if (!items || !memos.startsWith(items[0] as object | undefined)) return undefined;
  const identity = input.arrival?.identity ?? identifyBy(input.caller, input.conversation, () => format.opening(parsed, items), { secret: deps.secret, route: format.items.route });
  if (!identity.keepsRecords) return undefined;
  const key: ConversationKey = { tenant: identity.tenant, conversation: identity.conversation };
  const memo = memos.latest(`${format.items.route}\n${key.tenant}\n${key.conversation}`);
  const noted = memo?.reuseFirst;
  if (!memo || !noted || noted.note !== memo.decision || noted.note.model !== model || noted.recallEnabled !== model.recall.enabled) return undefined;
  // Memos are the process's; write sequences are each runtime's (tests run replicas side by side).
  if (noted.writes !== deps.records.writes || deps.records.writes.writtenSince(key, noted.seq)) return undefined;
  const now = Date.now();
  if (now - noted.readAt >= deps.config.store.ttl_seconds * 1000 || !noted.note.checkpoints.every((cp) => isLive(cp, now))) return undefined;
  const shared = sharedLength(memo.items, items as readonly object[]);
  const note = noteForPrefix(noted.note, memo, shared);
  if (!note) return undefined;
  const first = note === noted.note ? noted : { ...noted, note };
  const outside = outsideItems(parsed, format.itemsKey);
  if (!outside || !outside[0].equals(first.outside[0]) || !outside[1].equals(first.outside[1])) return undefined;
  const added = items.slice(shared);
  // A new call with the id of an earlier result (the memo's items after the pinned block) would rename its stub.
  if (
    renamesAClearedResult(
      memo.neutral,
      note.pinnedCount,
      shared,
      added.map((item) => format.items.describe(item)),
    )
  )
    return undefined;
  // What the new items add to every candidate: the client's own view's growth, at most.
  const fits = (bound: PromptBound | null) =>
    bound !== null && note.candidates[note.chosen]!.tokens + bound.messages - note.candidates[0]!.tokens <= lowestTriggerRatio(model) * first.lines.view;
  if (!fits(input.bound(model))) {
    const counted = exactBound(await input.count(identity.tenant, model));
    // The record may have been written while the count yielded to other requests.
    if (!fits(counted) || deps.records.writes.writtenSince(key, noted.seq)) return undefined;
  }
  const highest = model.compaction.trigger_ratio;
  for (let k = 0; k < note.chosen; k++) if (note.candidates[k]!.tokens <= highest * (k === 0 ? first.lines.own : first.lines.view)) return undefined;
  const view = (note.view as T[]).concat(added);
  const body = first.recall && format.recall ? format.recall.body(parsed, view) : format.withView(parsed, view);
  return { identity, view, note: first, body };
}
