import type { NeutralItem } from '../compaction/items.js';
import type { ModelConfig } from '../config/config.js';
import type { DecisionNote, Memo } from './analysis-memo.js';
import type { Checkpoint } from '../store/store.js';
import type { Analysis } from './analyze.js';
import { type Base, type CandidateCosts, checkpointBase, chooseBase } from './choose-view.js';

// A conversation past its trigger reuses one stored summary request after request, each adding a
// few items: its view is the last one plus those items, and working it out again (every
// candidate's cost, the view's items) is a pass over the whole history per candidate. The last
// forward decision is noted on the conversation's analysis memo (analysis-memo.ts), and a request
// that starts with all of that request's items (the same objects) takes it over when nothing it
// was made from has changed: the same model, the same recall offer, the same pinned block, the
// same matching checkpoints, and counts that are the tokenizer's own (no calibration factor
// that may have moved since). Each candidate's view then costs what it cost plus the new items
// (a checkpoint's cleared results lie within its prefix, so none of them is new), which the
// trigger lines of this request are applied to exactly as decide.ts would.

/** What tells stored checkpoints apart (a record read anew has new objects for the same checkpoints). */
export function identityOf(cp: Checkpoint | null): string | null {
  if (cp === null) return null;
  return [cp.chainHash, cp.covered, cp.prefix ?? '', cp.createdAt, cp.summaryTokens, cp.kept?.length ?? 0, cp.cleared?.length ?? 0, cp.pendingUntil ?? ''].join(':');
}

/** The note of a forward decision over `all` (choice among them), or undefined when there is nothing to take over. */
export function noteOf<T>(
  a: Analysis<T>,
  model: ModelConfig,
  recall: boolean,
  all: readonly CandidateCosts[],
  choice: CandidateCosts,
  view: readonly T[] | null,
): DecisionNote | undefined {
  const chosen = all.indexOf(choice);
  if (chosen <= 0 || view === null || choice.base.checkpoint?.pendingUntil !== undefined) return undefined;
  return {
    model,
    recall,
    pinnedCount: a.seg.pinnedCount,
    summaryIndex: a.seg.summaryIndex,
    fixedTokens: a.layout.fixedTokens,
    restLength: a.rest.length,
    candidates: all.map((c) => ({ checkpoint: identityOf(c.base.checkpoint), tokens: c.tokens })),
    chosen,
    checkpoints: all.slice(1).map((c) => c.base.checkpoint!),
    view,
  };
}

/**
 * The note of a decision as if its request had held only its first `shared` items: what a branch
 * of the conversation (a regenerated reply, an edited last turn, another path from the same
 * history) takes over. Each candidate then costs what it cost less the items taken away, which
 * every candidate shows verbatim after what its checkpoint is about: every checkpoint's prefix
 * lies within the shared items, the view ends with these very objects, and none of them calls
 * with the id of a result a stub may name (the stub names the last call with its id). Undefined
 * when it is not so; the note itself when nothing is taken away.
 */
export function noteForPrefix(note: DecisionNote, memo: Pick<Memo, 'items' | 'neutral' | 'tokens'>, shared: number): DecisionNote | undefined {
  const total = note.pinnedCount + note.restLength;
  if (memo.items.length !== total || shared > total) return undefined;
  if (shared === total) return note;
  const restLength = shared - note.pinnedCount;
  const removed = total - shared;
  // At least one item after the pinned block stays, so that none of what follows can join it.
  if (restLength < 1) return undefined;
  for (const cp of note.checkpoints) if ((cp.prefix ?? cp.covered) > restLength) return undefined;
  const kept = note.view.length - removed;
  for (let i = 0; i < removed; i++) if (note.view[kept + i] !== memo.items[shared + i]) return undefined;
  if (renamesAClearedResult(memo.neutral, note.pinnedCount, shared, memo.neutral.slice(shared))) return undefined;
  let tokens = 0;
  for (let i = shared; i < total; i++) tokens += memo.tokens[i]!;
  return { ...note, restLength, candidates: note.candidates.map((c) => ({ checkpoint: c.checkpoint, tokens: c.tokens - tokens })), view: note.view.slice(0, kept) };
}

export interface TakeOverInput<T> {
  a: Analysis<T>;
  note: DecisionNote;
  model: ModelConfig;
  recall: boolean;
  /** The checkpoints that apply to this request, least compacted first (matchingCheckpoints). */
  matching: readonly Checkpoint[];
  /** Tokens of the client's own view of this request. */
  raw: number;
  trigger: number;
  ownTrigger: number;
}

/** The candidates, the one forwarded and its view, as decide.ts would work them out; undefined when the note does not apply. */
export function takeOver<T>(r: TakeOverInput<T>): { all: CandidateCosts[]; choice: CandidateCosts; view: T[] } | undefined {
  const { a, note } = r;
  if (note.model !== r.model || note.recall !== r.recall || note.fixedTokens !== a.layout.fixedTokens) return undefined;
  if (note.pinnedCount !== a.seg.pinnedCount || note.summaryIndex !== a.seg.summaryIndex || note.restLength > a.rest.length) return undefined;
  if (note.candidates.length !== r.matching.length + 1) return undefined;
  for (let k = 0; k < r.matching.length; k++) if (note.candidates[k + 1]!.checkpoint !== identityOf(r.matching[k]!)) return undefined;
  let added = 0;
  const { tokens } = a.layout;
  for (let i = note.restLength; i < tokens.length; i++) added += tokens[i]!;
  // The client's own view is counted afresh: a count that moved shows here first.
  if (note.candidates[0]!.tokens + added !== r.raw) return undefined;
  if (renamesAClearedResult(a.restNeutral, 0, note.restLength, a.restNeutral.slice(note.restLength))) return undefined;
  const bases: Base[] = [{ covered: 0, kept: [], cleared: new Set(), summary: a.clientSummary, checkpoint: null }, ...r.matching.map((cp) => checkpointBase(a, cp))];
  const all = bases.map((base, k) => ({ base, tokens: note.candidates[k]!.tokens + added }));
  const { choice, fits } = chooseBase(all, r.trigger, r.ownTrigger);
  if (!fits || all.indexOf(choice) !== note.chosen) return undefined;
  const view = (note.view as T[]).concat(a.rest.slice(note.restLength));
  return { all, choice, view };
}

/**
 * A cleared result's stub names the tool of the last call with its id: a new item (of `added`)
 * that calls with the id of a result among `items[from..to)` would change a stub that the note's
 * counts were made with.
 */
export function renamesAClearedResult(items: readonly NeutralItem[], from: number, to: number, added: readonly NeutralItem[]): boolean {
  const ids = new Set<string>();
  for (const item of added) for (const call of item.calls) ids.add(call.id);
  if (ids.size === 0) return false;
  for (let i = from; i < to; i++) {
    const of = items[i]!.resultOf;
    if (of !== null && ids.has(of)) return true;
  }
  return false;
}
