import { runSync, STEP_EVERY, type Steps } from '../slicing/slicer.js';
import type { ItemKind, NeutralItem } from './items.js';

// Where recap may cut a conversation (docs/design.md rule 1). After the pinned block, items group into
// units: a round's head (its user message), steps (one assistant turn: consecutive assistant-side
// items plus the results of their calls, parallel calls included), instructions and other items.
// A cut falls between two units, never inside one, so a tool call is never separated from its
// result and a kept tail never starts with one. A result whose call sits several units back (a
// client that put a user message between them) joins every unit in between into one.
//
// A recap summary inside the leading block (a client that echoes the forwarded view) is not pinned:
// it is reported as `summaryIndex`, so that its text is carried over as the previous summary.
// Which item is recap's own is the caller's call (the seal check), not the marker's.

export type UnitKind = 'head' | 'step' | 'instruction' | 'other';

export interface Unit {
  /** Items [start, end), counted from the first item after the pinned block. */
  start: number;
  end: number;
  kind: UnitKind;
  /** The round the unit belongs to (index into `rounds`). */
  round: number;
}

export interface Round {
  /** Unit index of the round's user message; null for what comes before the first one (a greeting). */
  head: number | null;
  /** Units [firstUnit, endUnit). */
  firstUnit: number;
  endUnit: number;
}

export interface Segmentation {
  /** Length of the leading system/developer block; those items are never summarized. */
  pinnedCount: number;
  /** Index (in the whole request) of the last of recap's own summaries in the leading block, or null. */
  summaryIndex: number | null;
  /** Units over the items after the pinned block, in order; they tile it. */
  units: Unit[];
  rounds: Round[];
  /**
   * Unit index of the conversation's opening task (its first user message after the pinned block),
   * or null when it has none. It stays in every view, whichever round a cut falls in (rule 1).
   */
  openingTask: number | null;
  /** Kind of each item after the pinned block. */
  kinds: ItemKind[];
  /** Unit index starting at each item index, for the items that start one. */
  unitAt: UnitStarts;
}

/** Which unit starts at an item index, if one does. */
export interface UnitStarts {
  get(item: number): number | undefined;
}

/** The unit starting at each item, found by bisecting the units (they tile the items in order). */
function unitStarts(units: readonly Unit[]): UnitStarts {
  return {
    get(item) {
      let lo = 0;
      let hi = units.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const start = units[mid]!.start;
        if (start === item) return mid;
        if (start < item) lo = mid + 1;
        else hi = mid - 1;
      }
      return undefined;
    },
  };
}

function startsUnit(item: NeutralItem, previous: NeutralItem | undefined): boolean {
  if (previous === undefined) return true;
  if (item.kind === 'result') return false;
  if (item.kind === 'assistant') return previous.kind !== 'assistant';
  return true;
}

function unitKind(first: ItemKind): UnitKind {
  if (first === 'user') return 'head';
  if (first === 'assistant') return 'step';
  if (first === 'instruction') return 'instruction';
  return 'other';
}

export function* segmentSteps(items: readonly NeutralItem[], isOwnSummary: (index: number) => boolean): Steps<Segmentation> {
  const { pinnedCount, summaryIndex } = pinnedBlock(items, isOwnSummary);
  const rest = items.slice(pinnedCount);
  const starts = rest.map((item, i) => startsUnit(item, rest[i - 1]));
  yield* joinResultsToTheirCalls(rest, starts);
  const units: Unit[] = [];
  const rounds: Round[] = [];
  yield* unitsFrom(rest, starts, 0, units, rounds);
  return finish(
    pinnedCount,
    summaryIndex,
    units,
    rounds,
    rest.map((item) => item.kind),
  );
}

function pinnedBlock(items: readonly NeutralItem[], isOwnSummary: (index: number) => boolean): { pinnedCount: number; summaryIndex: number | null } {
  let pinnedCount = 0;
  let summaryIndex: number | null = null;
  while (pinnedCount < items.length && items[pinnedCount]!.kind === 'instruction') {
    if (isOwnSummary(pinnedCount)) summaryIndex = pinnedCount;
    pinnedCount++;
  }
  return { pinnedCount, summaryIndex };
}

/** Groups rest[from…] into units and rounds after those given (which end at `from`), by the unit starts of `starts` (indexed from `from`). */
function* unitsFrom(rest: readonly NeutralItem[], starts: readonly boolean[], from: number, units: Unit[], rounds: Round[]): Steps<void> {
  for (let i = from; i < rest.length; i++) {
    if (i % STEP_EVERY === 0) yield;
    if (!starts[i - from]) continue;
    const previous = units.at(-1);
    if (previous) previous.end = i;
    const kind = unitKind(rest[i]!.kind);
    if (kind === 'head' || rounds.length === 0) {
      const open = rounds.at(-1);
      if (open) open.endUnit = units.length;
      rounds.push({ head: kind === 'head' ? units.length : null, firstUnit: units.length, endUnit: units.length });
    }
    units.push({ start: i, end: rest.length, kind, round: rounds.length - 1 });
  }
  const open = rounds.at(-1);
  if (open) open.endUnit = units.length;
}

function finish(pinnedCount: number, summaryIndex: number | null, units: Unit[], rounds: Round[], kinds: ItemKind[]): Segmentation {
  const openingTask = rounds.find((r) => r.head !== null)?.head ?? null;
  return { pinnedCount, summaryIndex, units, rounds, openingTask, kinds, unitAt: unitStarts(units) };
}

/**
 * The segmentation of `items` from that of their first `known` items (`previous`, of the same
 * items, as segmentSteps made it), working over what follows the last unit of `previous` only:
 * the same as segmentSteps over all of them. Null when that cannot be shown without the whole
 * history (nothing after the pinned block before, or a new result whose call is not in that last
 * unit or after it: joining them may merge older units); the caller segments the whole then.
 */
export function* extendSegmentationSteps(
  previous: Segmentation,
  known: number,
  items: readonly NeutralItem[],
  isOwnSummary: (index: number) => boolean,
): Steps<Segmentation | null> {
  const { pinnedCount } = previous;
  const last = previous.units.at(-1);
  if (last === undefined || known > items.length || known - pinnedCount !== previous.kinds.length) return null;
  // The pinned block is read again: which summary is recap's own is the caller's (its key) to say.
  const pinned = pinnedBlock(items, isOwnSummary);
  if (pinned.pinnedCount !== pinnedCount || pinned.summaryIndex !== previous.summaryIndex) return null;
  // Every unit before the last one stays as it was: a start is never inside a call's span, so no
  // earlier span reaches past it, and every new result joins a call from `from` on (checked below).
  const from = last.start;
  const rest = items.slice(pinnedCount);
  const tail = rest.slice(from);
  const starts = tail.map((item, i) => startsUnit(item, rest[from + i - 1]));
  for (let i = known - pinnedCount; i < rest.length; i++) {
    const id = rest[i]!.kind === 'result' ? rest[i]!.resultOf : null;
    if (id !== null && !issuedBetween(rest, id, from, i + 1)) return null;
  }
  yield* joinResultsToTheirCalls(tail, starts);
  const lastIndex = previous.units.length - 1;
  const units = previous.units.slice(0, lastIndex);
  const opensRound = previous.rounds[last.round]!.firstUnit === lastIndex;
  // The round still open before `last` (its end moves on), copied: the previous segmentation is not changed.
  const rounds = previous.rounds.slice(0, opensRound ? last.round : last.round + 1).map((r, i, all) => (i === all.length - 1 ? { ...r } : r));
  const before = units.at(-1);
  if (before) units[lastIndex - 1] = { ...before };
  yield* unitsFrom(rest, starts, from, units, rounds);
  const kinds = previous.kinds.concat(rest.slice(previous.kinds.length).map((item) => item.kind));
  return finish(pinnedCount, previous.summaryIndex, units, rounds, kinds);
}

/** Whether an item in rest[from, to) calls `id` (a result whose call is not there may join one before `from`). */
function issuedBetween(rest: readonly NeutralItem[], id: string, from: number, to: number): boolean {
  for (let i = to - 1; i >= from; i--) if (rest[i]!.calls.some((c) => c.id === id)) return true;
  return false;
}

export function segment(items: readonly NeutralItem[], isOwnSummary: (index: number) => boolean): Segmentation {
  return runSync(segmentSteps(items, isOwnSummary));
}

/**
 * Clears every unit start between a call and its result, so the two always share a unit. Each
 * such span (call, result] is marked in a difference array, so that 200k results of one message's
 * parallel calls cost one pass, not one pass each.
 */
function* joinResultsToTheirCalls(rest: readonly NeutralItem[], starts: boolean[]): Steps<void> {
  const issuedAt = new Map<string, number>();
  const opened = new Int32Array(rest.length + 1);
  // Counted in items and calls: one message may carry 200k parallel calls.
  let work = 0;
  for (const [i, item] of rest.entries()) {
    for (const call of item.calls) {
      issuedAt.set(call.id, i);
      if (++work % STEP_EVERY === 0) yield;
    }
    if (++work % STEP_EVERY === 0) yield;
    const callIndex = item.kind === 'result' && item.resultOf !== null ? issuedAt.get(item.resultOf) : undefined;
    if (callIndex === undefined || callIndex >= i) continue;
    opened[callIndex + 1]! += 1;
    opened[i + 1]! -= 1;
  }
  let inside = 0;
  for (let k = 0; k < rest.length; k++) {
    inside += opened[k]!;
    if (inside > 0) starts[k] = false;
  }
}

/** Items [start, end) of the opening task's unit, or null when the conversation has none. */
export function openingTaskSpan(seg: Segmentation): { start: number; end: number } | null {
  const unit = seg.openingTask === null ? undefined : seg.units[seg.openingTask];
  return unit === undefined ? null : { start: unit.start, end: unit.end };
}

/** The steps of the request (units of kind step), oldest first. */
export function stepUnits(seg: Segmentation): readonly number[] {
  let steps = stepsOf.get(seg);
  if (!steps) {
    steps = [];
    for (const [i, u] of seg.units.entries()) if (u.kind === 'step') steps.push(i);
    stepsOf.set(seg, steps);
  }
  return steps;
}

// A segmentation never changes once made: its steps are listed once.
const stepsOf = new WeakMap<Segmentation, number[]>();
