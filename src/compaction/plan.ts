import type { CompactionConfig } from '../config/schema.js';
import { runSync, STEP_EVERY, type Steps } from '../slicing/slicer.js';
import { type ClearingRules, clearableResults } from './clearing.js';
import { type BaseView, cutIndex, type Layout, viewTokensSteps } from './layout.js';
import { openingTaskSpan } from './units.js';
import { summaryReservation } from './validate-summary.js';

// Pure decisions on token counts: no items, no I/O. Compaction starts above trigger × budget and
// shrinks the view to about target × budget (rule 4: the hysteresis that lets the next turns fit
// without another change of the prompt prefix). The cheap stage comes first (rule 11): clearing
// old tool results; only when that is not enough is a summary made, and then the fewest leading
// units are evicted, the kept part cleared too.

export type PlanRatios = Pick<CompactionConfig, 'trigger_ratio' | 'target_ratio' | 'summary_max_tokens'>;

export interface PlanRules extends PlanRatios {
  prepare_ratio: number;
  /** Keep later system/developer items verbatim instead of summarizing them (rule 2). */
  keepInstructions: boolean;
  clearing: ClearingRules | null;
  /** The opening task stays verbatim in every view while it takes at most this share of the budget (rule 1). */
  taskMaxShare: number;
}

/** A new view: what is covered, kept verbatim, cleared, and which items a new summary takes in. */
export interface Cut {
  covered: number;
  kept: number[];
  cleared: number[];
  /** Items the new summary adds to the base's (empty for a drop or a clearing). */
  evicted: number[];
  tokens: number;
}

export type Plan = { kind: 'fits' } | ({ kind: 'clear' } & Cut) | ({ kind: 'summarize' } & Cut) | { kind: 'irreducible' };

/** What the view costs with each possible cut after the base, all clearable results cleared. */
class CutCosts {
  private readonly keptEligible: boolean[];
  /** suffix[i]: tokens of items [i, n) as shown once everything clearable is cleared. */
  private readonly suffix: number[];
  /** instructionPrefix[i]: tokens of the instructions below i that a cut there keeps verbatim. */
  private readonly instructionPrefix: number[];
  /** instructionCount[i]: how many they are. */
  private readonly instructionCount: number[];
  /** Items the base keeps that are not instructions: the tasks (opening, and of the round its cut fell in). */
  private readonly baseHeads: number[];
  /** Items of the opening task when it is kept in every view (small enough); else empty. */
  private readonly task: readonly number[];
  readonly cleared: Set<number>;

  constructor(
    private readonly l: Layout,
    private readonly base: BaseView,
    private readonly rules: PlanRules,
    arrays: { keptEligible: boolean[]; cleared: Set<number>; suffix: number[]; instructionPrefix: number[]; instructionCount: number[]; task: number[] },
  ) {
    this.keptEligible = arrays.keptEligible;
    this.cleared = arrays.cleared;
    this.suffix = arrays.suffix;
    this.instructionPrefix = arrays.instructionPrefix;
    this.instructionCount = arrays.instructionCount;
    this.task = arrays.task;
    this.baseHeads = base.kept.filter((i) => !this.isKeptInstruction(i));
  }

  /** Built in steps: on a request of 100k items each array is a pass over all of them. */
  static *build(l: Layout, base: BaseView, rules: PlanRules, budget: number): Steps<CutCosts> {
    const n = l.tokens.length;
    const baseKept = new Set(base.kept);
    // What a new cut may keep: never something the base's summary already took in, except the
    // opening task (a checkpoint made before it was pinned, or when it did not fit its share).
    const task = pinnedTask(l, rules, budget);
    const keptEligible = l.tokens.map((_, i) => i >= base.covered || baseKept.has(i));
    for (const i of task) keptEligible[i] = true;
    const cleared = new Set([...base.cleared, ...(yield* clearableResults(l, rules.clearing, base.covered))]);
    const suffix = new Array<number>(n + 1).fill(0);
    for (let i = n - 1; i >= 0; i--) {
      suffix[i] = suffix[i + 1]! + (cleared.has(i) ? l.stubTokens(i) : l.tokens[i]!);
      if (i % STEP_EVERY === 0) yield;
    }
    const instructionPrefix = new Array<number>(n + 1).fill(0);
    const instructionCount = new Array<number>(n + 1).fill(0);
    for (let i = 0; i < n; i++) {
      const kept = rules.keepInstructions && l.seg.kinds[i] === 'instruction' && keptEligible[i]!;
      instructionPrefix[i + 1] = instructionPrefix[i]! + (kept ? l.tokens[i]! : 0);
      instructionCount[i + 1] = instructionCount[i]! + (kept ? 1 : 0);
      if (i % STEP_EVERY === 0) yield;
    }
    return new CutCosts(l, base, rules, { keptEligible, cleared, suffix, instructionPrefix, instructionCount, task });
  }

  private isKeptInstruction(i: number): boolean {
    return this.rules.keepInstructions && this.l.seg.kinds[i] === 'instruction' && this.keptEligible[i]!;
  }

  /**
   * Items of user messages that a cut at unit c keeps (rule 1): the opening task, when it is
   * small enough, and the cut round's own user message, in order.
   */
  private headItems(c: number): number[] {
    const { units, rounds, openingTask } = this.l.seg;
    const unit = units[c];
    const head = unit === undefined ? null : rounds[unit.round]!.head;
    const items = openingTask !== null && openingTask < c && openingTask !== head ? this.task.filter((i) => !this.isKeptInstruction(i)) : [];
    if (head === null || head >= c) return items;
    for (let i = units[head]!.start; i < units[head]!.end; i++) if (this.keptEligible[i] && !this.isKeptInstruction(i)) items.push(i);
    return items;
  }

  private start(c: number): number {
    return this.l.seg.units[c]?.start ?? this.l.tokens.length;
  }

  tokensAt(c: number): number {
    const k = this.start(c);
    let head = 0;
    for (const i of this.headItems(c)) head += this.l.tokens[i]!;
    return this.l.fixedTokens + this.instructionPrefix[k]! + head + this.suffix[k]!;
  }

  /** Whether a cut at unit c takes anything out of the view (cutAt(c).evicted is not empty), in constant time. */
  evicts(c: number): boolean {
    const covered = this.start(c);
    const head = this.headItems(c);
    const from = this.base.covered;
    const keptInRange = this.instructionCount[covered]! - this.instructionCount[from]! + head.filter((i) => i >= from).length;
    if (covered - from > keptInRange) return true;
    return this.baseHeads.some((i) => !head.includes(i));
  }

  cutAt(c: number, summaryTokens: number): Cut {
    const covered = this.start(c);
    const kept: number[] = [];
    for (let i = 0; i < covered; i++) if (this.isKeptInstruction(i)) kept.push(i);
    kept.push(...this.headItems(c));
    kept.sort((a, b) => a - b);
    const keptSet = new Set(kept);
    const evicted: number[] = [];
    for (const i of this.base.kept) if (!keptSet.has(i)) evicted.push(i);
    for (let i = this.base.covered; i < covered; i++) if (!keptSet.has(i)) evicted.push(i);
    const cleared = [...this.cleared].filter((i) => i >= covered).sort((a, b) => a - b);
    return { covered, kept, cleared, evicted: evicted.sort((a, b) => a - b), tokens: this.tokensAt(c) + summaryTokens };
  }
}

/** Items of the opening task when it stays in every view: at most taskMaxShare of the budget. */
export function pinnedTask(l: Layout, rules: Pick<PlanRules, 'taskMaxShare'>, budget: number): number[] {
  const span = openingTaskSpan(l.seg);
  if (span === null) return [];
  const items: number[] = [];
  let tokens = 0;
  for (let i = span.start; i < span.end; i++) {
    items.push(i);
    tokens += l.tokens[i]!;
  }
  return tokens <= rules.taskMaxShare * budget ? items : [];
}

/**
 * The first cut in [from, to] whose view fits `limit`, else the cheapest one (the earliest of
 * equals). With `mustEvict`, only cuts that take something out of the view count: one that passes
 * only items kept verbatim saves nothing.
 */
function* firstFitting(costs: CutCosts, from: number, to: number, limit: number, mustEvict: boolean): Steps<number | null> {
  let best: number | null = null;
  let bestTokens = Infinity;
  for (let c = from; c <= to; c++) {
    if (c % STEP_EVERY === 0) yield;
    const tokens = costs.tokensAt(c);
    if (tokens > limit && tokens >= bestTokens) continue;
    if (mustEvict && !costs.evicts(c)) continue;
    if (tokens <= limit) return c;
    [best, bestTokens] = [c, tokens];
  }
  return best;
}

function lastCut(l: Layout): number {
  // The newest unit is always kept.
  return l.seg.units.length - 1;
}

/** Clearing alone, oldest results first, until the view is at or under `limit` (or all are cleared); null if none is. */
function* clearTo(l: Layout, base: BaseView, rules: PlanRules, limit: number): Steps<Cut | null> {
  let tokens = yield* viewTokensSteps(l, base);
  const cleared = new Set(base.cleared);
  for (const i of yield* clearableResults(l, rules.clearing, base.covered)) {
    if (tokens <= limit) break;
    if (cleared.has(i)) continue;
    cleared.add(i);
    tokens -= l.tokens[i]! - l.stubTokens(i);
  }
  if (cleared.size === base.cleared.size) return null;
  return { covered: base.covered, kept: [...base.kept], cleared: [...cleared].sort((a, b) => a - b), evicted: [], tokens };
}

/** A new summary: the fewest leading units after the base evicted, so the view lands at `ratio` × budget. */
function* summarizeTo(l: Layout, base: BaseView, rules: PlanRules, budget: number, ratio: number): Steps<Cut | null> {
  const from = cutIndex(l.seg, base.covered);
  if (from === null || from + 1 > lastCut(l)) return null;
  const reserved = summaryReservation(rules.summary_max_tokens);
  const costs = yield* CutCosts.build(l, base, rules, budget);
  const c = yield* firstFitting(costs, from + 1, lastCut(l), ratio * budget - reserved, true);
  return c === null ? null : costs.cutAt(c, reserved);
}

export function* planCompactionSteps(l: Layout, base: BaseView, budget: number, rules: PlanRules): Steps<Plan> {
  if ((yield* viewTokensSteps(l, base)) <= rules.trigger_ratio * budget) return { kind: 'fits' };
  const cleared = yield* clearTo(l, base, rules, rules.target_ratio * budget);
  if (cleared && cleared.tokens <= rules.target_ratio * budget) return { kind: 'clear', ...cleared };
  const cut = yield* summarizeTo(l, base, rules, budget, rules.target_ratio);
  if (cut) return { kind: 'summarize', ...cut };
  // Nothing left to evict: clear what can be cleared, even if the target stays out of reach.
  return cleared ? { kind: 'clear', ...cleared } : { kind: 'irreducible' };
}

/**
 * The failure path (summarizer down, empty or oversized summary): clear what can be cleared and
 * drop the oldest units as a projection, keeping the pinned block, the base's summary and what a
 * cut keeps verbatim, until the view fits the whole budget. Nothing replaces what is dropped, so
 * the target is not used: keep all that fits.
 */
export function* planDegradeSteps(l: Layout, base: BaseView, budget: number, rules: PlanRules): Steps<Cut> {
  const from = cutIndex(l.seg, base.covered) ?? 0;
  const costs = yield* CutCosts.build(l, base, rules, budget);
  const c = (yield* firstFitting(costs, from, Math.max(from, lastCut(l)), budget - base.summaryTokens, false)) ?? from;
  const cut = costs.cutAt(c, base.summaryTokens);
  return { ...cut, evicted: [] };
}

/**
 * Background preparation: once the view passes prepare × budget, the summary the next overflow
 * will need, made off the request path. The conversation still grows by about (trigger − prepare)
 * × budget before the checkpoint is used, so it aims that much below the target. Null below the
 * prepare line, when nothing would be evicted, or when clearing alone reaches the target now: the
 * overflow will then be cleared inline at no cost, as it would be without background preparation
 * (the steps still to come are clearable too, beyond the newest few), and a summary made now would
 * be a call that compacting inline never makes (rule 10).
 */
export function* planPrepareSteps(l: Layout, base: BaseView, budget: number, rules: PlanRules): Steps<Cut | null> {
  const tokens = yield* viewTokensSteps(l, base);
  if (tokens <= rules.prepare_ratio * budget) return null;
  const ratio = rules.target_ratio - Math.max(0, rules.trigger_ratio - rules.prepare_ratio);
  if (tokens <= ratio * budget) return null;
  const cleared = yield* clearTo(l, base, rules, rules.target_ratio * budget);
  if (cleared && cleared.tokens <= rules.target_ratio * budget) return null;
  return yield* summarizeTo(l, base, rules, budget, ratio);
}

/**
 * How many tokens may still follow the view (items appended at its end) before planPrepare could
 * return a cut: below the prepare line, its distance to that line; where the view is over the
 * target and clearing alone brings it under, the target's distance to what clearing *every*
 * clearable result leaves: whatever follows, planPrepare's clearing may go on to all of them (the
 * results clearable now stay clearable when more items follow: what the newest steps protect only
 * moves on), so it reaches the target while less than that follows. The larger of the two; zero or
 * less when a cut may be due now.
 */
export function* prepareRoomSteps(l: Layout, base: BaseView, budget: number, rules: PlanRules): Steps<number> {
  const tokens = yield* viewTokensSteps(l, base);
  const belowLine = rules.prepare_ratio * budget - tokens;
  const target = rules.target_ratio * budget;
  // At or under the target planPrepare clears nothing: only the line's distance holds.
  if (tokens <= target) return belowLine;
  const cleared = yield* clearTo(l, base, rules, Number.NEGATIVE_INFINITY);
  return cleared && cleared.tokens <= target ? Math.max(belowLine, target - cleared.tokens) : belowLine;
}

/**
 * When a summary is due but is being made elsewhere (a compaction already running, or background
 * preparation): clearing alone, as far as it goes, if that brings the view under the trigger. The
 * request then needs no summary yet and waits for none; later requests use it once it has landed.
 */
export function* planInterimSteps(l: Layout, base: BaseView, budget: number, rules: PlanRules): Steps<Cut | null> {
  const cleared = yield* clearTo(l, base, rules, rules.target_ratio * budget);
  return cleared && cleared.tokens <= rules.trigger_ratio * budget ? cleared : null;
}

// The same plans in one go, for pure callers and tests; the request path runs the steps in slices.
export const planCompaction = (l: Layout, base: BaseView, budget: number, rules: PlanRules): Plan => runSync(planCompactionSteps(l, base, budget, rules));
export const planDegrade = (l: Layout, base: BaseView, budget: number, rules: PlanRules): Cut => runSync(planDegradeSteps(l, base, budget, rules));
export const planPrepare = (l: Layout, base: BaseView, budget: number, rules: PlanRules): Cut | null => runSync(planPrepareSteps(l, base, budget, rules));
export const prepareRoom = (l: Layout, base: BaseView, budget: number, rules: PlanRules): number => runSync(prepareRoomSteps(l, base, budget, rules));
export const planInterim = (l: Layout, base: BaseView, budget: number, rules: PlanRules): Cut | null => runSync(planInterimSteps(l, base, budget, rules));
