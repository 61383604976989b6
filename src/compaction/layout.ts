import { runSync, STEP_EVERY, type Steps } from '../slicing/slicer.js';
import type { Segmentation } from './units.js';

// The token costs of the views recap can build for one request, without the items themselves:
// pinned block + summary + items kept verbatim from the covered part + the uncovered items, each
// cleared one counted as its stub (rules 1, 2, 11). Every planning decision is a question asked of
// this model.

export interface Layout {
  seg: Segmentation;
  /** Tokens of each item after the pinned block. */
  tokens: readonly number[];
  /** The pinned block (a sent-back summary excluded) plus the reply priming: in every view. */
  fixedTokens: number;
  /** Tokens of item i once cleared (only results are ever cleared). */
  stubTokens(i: number): number;
}

/** A view's base: what a stored checkpoint (or none) already did to the request. */
export interface BaseView {
  /** Items after the pinned block that the summary (or a drop) covers: [0, covered). */
  covered: number;
  /** Items below `covered` shown verbatim after the summary (instructions, the opening task, the task of a cut round). */
  kept: readonly number[];
  /** Items at or above `covered` shown as a cleared stub. */
  cleared: ReadonlySet<number>;
  /** Tokens of the summary message; 0 when there is none. */
  summaryTokens: number;
}

export function sumTokens(l: Layout, indices: Iterable<number>): number {
  let sum = 0;
  for (const i of indices) sum += l.tokens[i]!;
  return sum;
}

// Running totals of a layout's item tokens, per tokens array (a layout's never changes): every
// view's cost is then the uncovered part's total from them, corrected for its cleared items, instead
// of a pass over the whole history for each view recap weighs.
const runningTotals = new WeakMap<readonly number[], Float64Array>();

function* runningTotalsSteps(tokens: readonly number[]): Steps<Float64Array> {
  let totals = runningTotals.get(tokens);
  if (totals?.length === tokens.length + 1) return totals;
  totals = new Float64Array(tokens.length + 1);
  for (let i = 0; i < tokens.length; i++) {
    totals[i + 1] = totals[i]! + tokens[i]!;
    if (i % STEP_EVERY === 0) yield;
  }
  runningTotals.set(tokens, totals);
  return totals;
}

/** Tokens of the view built on `base`. */
export function* viewTokensSteps(l: Layout, base: BaseView): Steps<number> {
  const n = l.tokens.length;
  const totals = yield* runningTotalsSteps(l.tokens);
  let tokens = l.fixedTokens + base.summaryTokens + sumTokens(l, base.kept);
  // Counts are whole numbers, so the order they are added in changes nothing.
  if (base.covered < n) tokens += totals[n]! - totals[base.covered]!;
  let work = 0;
  for (const i of base.cleared) {
    if (i >= base.covered && i < n) tokens += l.stubTokens(i) - l.tokens[i]!;
    if (++work % STEP_EVERY === 0) yield;
  }
  return tokens;
}

export function viewTokens(l: Layout, base: BaseView): number {
  return runSync(viewTokensSteps(l, base));
}

/** The unit index at which a base's coverage ends, or null when `covered` is not a cut point. */
export function cutIndex(seg: Segmentation, covered: number): number | null {
  if (covered === 0) return 0;
  const total = seg.kinds.length;
  if (covered === total) return seg.units.length;
  return seg.unitAt.get(covered) ?? null;
}
