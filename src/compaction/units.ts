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
  unitAt: ReadonlyMap<number, number>;
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
  let pinnedCount = 0;
  let summaryIndex: number | null = null;
  while (pinnedCount < items.length && items[pinnedCount]!.kind === 'instruction') {
    if (isOwnSummary(pinnedCount)) summaryIndex = pinnedCount;
    pinnedCount++;
  }
  const rest = items.slice(pinnedCount);
  const starts = rest.map((item, i) => startsUnit(item, rest[i - 1]));
  yield* joinResultsToTheirCalls(rest, starts);

  const units: Unit[] = [];
  const rounds: Round[] = [];
  const unitAt = new Map<number, number>();
  for (let i = 0; i < rest.length; i++) {
    if (i % STEP_EVERY === 0) yield;
    if (!starts[i]) continue;
    const previous = units.at(-1);
    if (previous) previous.end = i;
    const kind = unitKind(rest[i]!.kind);
    if (kind === 'head' || rounds.length === 0) {
      const open = rounds.at(-1);
      if (open) open.endUnit = units.length;
      rounds.push({ head: kind === 'head' ? units.length : null, firstUnit: units.length, endUnit: units.length });
    }
    unitAt.set(i, units.length);
    units.push({ start: i, end: rest.length, kind, round: rounds.length - 1 });
  }
  const open = rounds.at(-1);
  if (open) open.endUnit = units.length;
  const openingTask = rounds.find((r) => r.head !== null)?.head ?? null;
  return { pinnedCount, summaryIndex, units, rounds, openingTask, kinds: rest.map((item) => item.kind), unitAt };
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
export function stepUnits(seg: Segmentation): number[] {
  return seg.units.flatMap((u, i) => (u.kind === 'step' ? [i] : []));
}
