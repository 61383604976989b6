import type { BaseView } from '../compaction/layout.js';
import { cutIndex, viewTokensSteps } from '../compaction/layout.js';
import { runSync, type Steps } from '../slicing/slicer.js';
import { applies, isLive, prefixOf } from '../store/checkpoints.js';
import type { Checkpoint, ConversationRecord } from '../store/store.js';
import type { Analysis } from './analyze.js';

// Which stored checkpoint a request uses. Candidates are "no stored summary" and every checkpoint
// whose prefix the request still starts with (rule 6) and whose cut is still a cut of this request.
// The least compacted candidate that fits under the trigger wins: a conversation keeps the same
// summary and the same cleared results (the same prompt prefix, friendly to the upstream's prompt
// cache) until they no longer fit, and a checkpoint prepared in the background is used only from
// the turn that needs it.

export interface Base {
  /** Items after the pinned block that the summary (or a drop) covers. */
  covered: number;
  kept: readonly number[];
  cleared: ReadonlySet<number>;
  summary: string | null;
  checkpoint: Checkpoint | null;
}

export interface CandidateCosts {
  base: Base;
  /** Tokens of the view built on this base. */
  tokens: number;
}

export function baseView<T>(a: Analysis<T>, base: Base): BaseView {
  return { covered: base.covered, kept: base.kept, cleared: base.cleared, summaryTokens: a.summaryTokens(base.summary) };
}

export function noSummaryBase<T>(a: Analysis<T>): Base {
  return { covered: 0, kept: [], cleared: new Set(), summary: a.clientSummary, checkpoint: null };
}

/** A checkpoint read back from the store describes a view of this very request (and nothing else). */
function fitsRequest<T>(a: Analysis<T>, cp: Checkpoint): boolean {
  const prefix = prefixOf(cp);
  const ints = (xs: unknown): xs is number[] => xs === undefined || (Array.isArray(xs) && xs.every(Number.isInteger));
  if (!Number.isInteger(cp.covered) || cp.covered < 0 || cp.covered > prefix || !ints(cp.kept) || !ints(cp.cleared)) return false;
  if (cutIndex(a.seg, cp.covered) === null) return false;
  if ((cp.kept ?? []).some((i) => i < 0 || i >= cp.covered)) return false;
  return (cp.cleared ?? []).every((i) => i >= cp.covered && i < prefix && a.seg.kinds[i] === 'result');
}

/** Live checkpoints that apply to this request (with these chain links), least compacted first. */
export function matchingCheckpoints<T>(a: Analysis<T>, record: ConversationRecord | null, now = Date.now(), links = record ? a.links : []): Checkpoint[] {
  if (!record) return [];
  return record.checkpoints
    .filter((cp) => isLive(cp, now) && applies(cp, links) && fitsRequest(a, cp))
    .sort((x, y) => x.covered - y.covered || (x.cleared?.length ?? 0) - (y.cleared?.length ?? 0));
}

export function checkpointBase<T>(a: Analysis<T>, cp: Checkpoint): Base {
  // The window strategy stores no summary: the client's own sent-back summary, if any, still stands.
  return { covered: cp.covered, kept: cp.kept ?? [], cleared: new Set(cp.cleared ?? []), summary: cp.summary || a.clientSummary, checkpoint: cp };
}

/** "No stored summary" first, then every matching checkpoint, least compacted first. */
export function* candidatesSteps<T>(a: Analysis<T>, record: ConversationRecord | null): Steps<CandidateCosts[]> {
  const links = record ? yield* a.linksSteps() : [];
  const bases = [noSummaryBase(a), ...matchingCheckpoints(a, record, Date.now(), links).map((cp) => checkpointBase(a, cp))];
  const out: CandidateCosts[] = [];
  for (const base of bases) out.push({ base, tokens: yield* viewTokensSteps(a.layout, baseView(a, base)) });
  return out;
}

export function candidates<T>(a: Analysis<T>, record: ConversationRecord | null): CandidateCosts[] {
  return runSync(candidatesSteps(a, record));
}

/**
 * The first candidate (least compacted) that fits, else the most compacted one as the base to
 * compact from. The first candidate is the client's own view, which leaves nothing out and so
 * carries no recap_recall: `ownTriggerTokens` is its line (the trigger without the tool and the
 * room kept for a recall answer).
 */
export function chooseBase(all: readonly CandidateCosts[], triggerTokens: number, ownTriggerTokens = triggerTokens): { choice: CandidateCosts; fits: boolean } {
  for (const [i, c] of all.entries()) if (c.tokens <= (i === 0 ? ownTriggerTokens : triggerTokens)) return { choice: c, fits: true };
  return { choice: all[all.length - 1]!, fits: false };
}
