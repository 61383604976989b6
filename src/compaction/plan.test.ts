import { describe, expect, it } from 'vitest';
import type { ItemKind } from './items.js';
import type { BaseView, Layout } from './layout.js';
import { type PlanRules, planCompaction, planDegrade, planPrepare } from './plan.js';
import { segment } from './units.js';

// summary_max_tokens 4 reserves summaryReservation(4) = 101 tokens for the summary message
// (framing included). Every layout has 53 fixed tokens (pinned + priming) and 20-token stubs.
const rules: PlanRules = { trigger_ratio: 1.0, target_ratio: 0.6, prepare_ratio: 0.8, summary_max_tokens: 4, keepInstructions: true, clearing: null, taskMaxShare: 0 };
const clearing = { keepLastSteps: 1, minTokens: 100 };

interface Spec {
  kind: ItemKind;
  tokens: number;
  call?: string;
  of?: string;
}
const user = (tokens: number): Spec => ({ kind: 'user', tokens });
const asst = (tokens: number, call?: string): Spec => ({ kind: 'assistant', tokens, ...(call ? { call } : {}) });
const result = (tokens: number, of: string): Spec => ({ kind: 'result', tokens, of });
const dev = (tokens: number): Spec => ({ kind: 'instruction', tokens });
/** `n` rounds of a user message and an assistant reply of `tokens` each. */
const chat = (...tokens: number[]): Spec[] => tokens.flatMap((t) => [user(t / 2), asst(t / 2)]);

function layout(specs: Spec[]): Layout {
  const items = specs.map((s) => ({ kind: s.kind, calls: s.call ? [{ id: s.call, name: 'f' }] : [], resultOf: s.of ?? null }));
  return { seg: segment(items, () => false), tokens: specs.map((s) => s.tokens), fixedTokens: 53, stubTokens: () => 20 };
}
const none: BaseView = { covered: 0, kept: [], cleared: new Set(), summaryTokens: 0 };

describe('planCompaction', () => {
  it('fits at or under trigger × budget', () => {
    expect(planCompaction(layout(chat(400, 547)), none, 1000, rules)).toEqual({ kind: 'fits' });
    expect(planCompaction(layout(chat(400, 547)), none, 1000, { ...rules, trigger_ratio: 0.9 }).kind).toBe('summarize');
  });

  it('evicts the fewest leading units that bring the view under target × budget − summary reservation', () => {
    // limit 600 − 101 = 499 − 53 fixed = 446: keeping 150 + 150 + 140 fits; cutting before round 3's reply keeps its question too.
    const plan = planCompaction(layout(chat(300, 300, 150, 150, 140)), none, 1000, rules);
    expect(plan).toMatchObject({ kind: 'summarize', covered: 4, kept: [], evicted: [0, 1, 2, 3] });
  });

  it('cuts between the steps of one long task, keeping the task itself verbatim', () => {
    const step = (id: string) => [asst(10, id), result(290, id)];
    const task = [user(50), ...step('a'), ...step('b'), ...step('c'), ...step('d')];
    // Keeping the task (50) and one step (300) is 403 with the fixed tokens: the first cut under 499.
    expect(planCompaction(layout(task), none, 1000, rules)).toMatchObject({ kind: 'summarize', covered: 7, kept: [0], evicted: [1, 2, 3, 4, 5, 6] });
  });

  it('keeps a later instruction verbatim when its part of the conversation is evicted, and counts it', () => {
    const specs = [user(120), asst(120), dev(30), user(120), asst(120), user(120), asst(120), user(120), asst(120)];
    const plan = planCompaction(layout(specs), none, 1000, { ...rules, target_ratio: 0.5 });
    // limit 500 − 101 − 53 = 346: the instruction (30) and the last round (240) fit, one more round does not.
    expect(plan).toMatchObject({ kind: 'summarize', covered: 7, kept: [2], evicted: [0, 1, 3, 4, 5, 6] });
    const leadingOnly = planCompaction(layout(specs), none, 1000, { ...rules, target_ratio: 0.5, keepInstructions: false });
    expect(leadingOnly).toMatchObject({ kind: 'summarize', covered: 7, kept: [], evicted: [0, 1, 2, 3, 4, 5, 6] });
  });

  it('clears old tool results first and makes no summary when that reaches the target', () => {
    const specs = [user(10), asst(10, 'a'), result(400, 'a'), asst(10, 'b'), result(400, 'b'), asst(10, 'c'), result(400, 'c'), asst(10, 'd'), result(10, 'd')];
    // 1313 tokens; clearing the oldest result saves 380 (933), the next one 380 more (553 ≤ 600).
    expect(planCompaction(layout(specs), none, 1000, { ...rules, clearing })).toEqual({ kind: 'clear', covered: 0, kept: [], cleared: [2, 4], evicted: [], tokens: 553 });
    // Without clearing the same request is summarized.
    expect(planCompaction(layout(specs), none, 1000, rules).kind).toBe('summarize');
  });

  it('never clears the newest steps, nor results under the minimum size', () => {
    const specs = [user(10), asst(10, 'a'), result(90, 'a'), asst(10, 'b'), result(2000, 'b')];
    expect(planCompaction(layout(specs), none, 1000, { ...rules, clearing })).toMatchObject({ kind: 'summarize', covered: 3, kept: [0], cleared: [] });
  });

  it('summarizes with every clearable result cleared when clearing alone is not enough', () => {
    const specs = [user(10), asst(300), asst(10, 'a'), result(400, 'a'), asst(300), asst(10, 'b'), result(400, 'b'), asst(10)];
    const plan = planCompaction(layout(specs), none, 1000, { ...rules, clearing });
    expect(plan).toMatchObject({ kind: 'summarize', kept: [0], cleared: [6] });
    if (plan.kind === 'summarize') expect(plan.tokens).toBeLessThanOrEqual(600);
  });

  it('keeps the cleared results of its base and clears more on top', () => {
    const specs = [user(10), asst(10, 'a'), result(400, 'a'), asst(10, 'b'), result(400, 'b'), asst(10, 'c'), result(400, 'c'), asst(10, 'd'), result(400, 'd'), asst(10)];
    const base = { ...none, cleared: new Set([2]) };
    expect(planCompaction(layout(specs), base, 1000, { ...rules, clearing })).toMatchObject({ kind: 'clear', cleared: [2, 4, 6] });
  });

  it('is irreducible when only the newest unit is left, or no unit at all', () => {
    expect(planCompaction(layout([user(5000)]), none, 1000, rules)).toEqual({ kind: 'irreducible' });
    expect(planCompaction(layout([user(10), asst(5000)]), none, 1000, rules)).toEqual({ kind: 'irreducible' });
    expect(planCompaction(layout([]), { ...none, summaryTokens: 5000 }, 1000, rules).kind).toBe('irreducible');
  });

  it('evicts at least one unit when only an oversized current summary is over the trigger', () => {
    const plan = planCompaction(layout(chat(100, 100)), { ...none, summaryTokens: 900 }, 1000, rules);
    // Cutting after round 1's question would keep it verbatim and evict nothing.
    expect(plan).toMatchObject({ kind: 'summarize', covered: 2, evicted: [0, 1] });
  });

  it('evicts as much as it can when even the newest unit with the pinned block stays over the target', () => {
    expect(planCompaction(layout([...chat(10, 10), user(10), asst(2000)]), none, 1000, rules)).toMatchObject({ kind: 'summarize', covered: 4, kept: [] });
  });

  it('plans from a base: only what the base does not cover, its kept task given to the summary once its round is passed', () => {
    const specs = [user(50), asst(10, 'a'), result(290, 'a'), asst(10, 'b'), result(290, 'b'), user(300), asst(300), user(100), asst(100)];
    // The base summarized step a and kept the task; the new cut passes the task's round and the next.
    const base: BaseView = { covered: 3, kept: [0], cleared: new Set(), summaryTokens: 100 };
    const plan = planCompaction(layout(specs), base, 1000, rules);
    expect(plan).toMatchObject({ kind: 'summarize', covered: 7, kept: [], evicted: [0, 3, 4, 5, 6] });
  });
});

describe('the opening task (rule 1)', () => {
  const step = (id: string) => [asst(10, id), result(290, id)];
  const withTask = { ...rules, taskMaxShare: 0.25 };

  it('stays verbatim after the summary when a harness note opened the cut round, the note after it', () => {
    // The task (50), two steps, a harness note ("continue", 10), two more steps.
    const specs = [user(50), ...step('a'), ...step('b'), user(10), ...step('c'), ...step('d')];
    const plan = planCompaction(layout(specs), none, 1000, withTask);
    expect(plan).toMatchObject({ kind: 'summarize', covered: 8, kept: [0, 5], evicted: [1, 2, 3, 4, 6, 7] });
    // Without it, the note is "the task" and the real one goes into the summary.
    expect(planCompaction(layout(specs), none, 1000, rules)).toMatchObject({ kind: 'summarize', covered: 8, kept: [5] });
  });

  it('stays once its whole round and later rounds are evicted, and in the degraded view', () => {
    const specs = [user(50), asst(300), user(300), asst(300), user(100), asst(100)];
    expect(planCompaction(layout(specs), none, 1000, withTask)).toMatchObject({ kind: 'summarize', covered: 4, kept: [0], evicted: [1, 2, 3] });
    expect(planDegrade(layout(specs), none, 400, withTask)).toMatchObject({ covered: 4, kept: [0], tokens: 303 });
  });

  it('is summarized like the rest when it is over its share of the budget, unless its own round is cut', () => {
    const specs = [user(260), asst(300), user(300), asst(300), user(100), asst(100)];
    expect(planCompaction(layout(specs), none, 1000, withTask)).toMatchObject({ kind: 'summarize', kept: [], evicted: [0, 1, 2, 3] });
    const task = [user(260), ...step('a'), ...step('b'), ...step('c')];
    expect(planCompaction(layout(task), none, 1000, withTask)).toMatchObject({ kind: 'summarize', kept: [0] });
  });

  it('comes back on a base that had summarized it (a checkpoint of an older build)', () => {
    const specs = [user(50), ...step('a'), ...step('b'), user(10), ...step('c'), ...step('d'), ...step('e')];
    const base: BaseView = { covered: 3, kept: [], cleared: new Set(), summaryTokens: 100 };
    const plan = planCompaction(layout(specs), base, 1000, withTask);
    expect(plan).toMatchObject({ kind: 'summarize', kept: [0, 5] });
    if (plan.kind === 'summarize') expect(plan.evicted).not.toContain(0);
  });
});

describe('hysteresis', () => {
  /** Turns of two 20-token messages, compacting whenever planned; returns the turns that compacted. */
  function simulate(targetRatio: number, turns: number): number[] {
    let specs: Spec[] = [];
    let base: BaseView = none;
    const compactedAt: number[] = [];
    for (let turn = 0; turn < turns; turn++) {
      specs = [...specs, ...chat(40)];
      const plan = planCompaction(layout(specs), base, 1000, { ...rules, target_ratio: targetRatio });
      if (plan.kind !== 'summarize') continue;
      compactedAt.push(turn);
      base = { covered: plan.covered, kept: plan.kept, cleared: new Set(), summaryTokens: 80 };
    }
    return compactedAt;
  }

  it('lets ten more turns of similar size fit after a compaction', () => {
    const compactedAt = simulate(0.6, 80);
    expect(compactedAt.length).toBeGreaterThan(2);
    for (let i = 1; i < compactedAt.length; i++) expect(compactedAt[i]! - compactedAt[i - 1]!).toBeGreaterThan(10);
  });

  it('would summarize on nearly every turn with a target just under the trigger', () => {
    const compactedAt = simulate(0.99, 80);
    const gaps = compactedAt.slice(1).map((t, i) => t - compactedAt[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(2);
  });
});

describe('planDegrade', () => {
  it('drops the oldest units until the view fits the budget, keeping the previous summary', () => {
    // 53 + 15 = 68 fixed; 68 + 80 > 130, 68 + 60 = 128 fits once one round is dropped.
    const cut = planDegrade(layout(chat(20, 20, 20, 20)), { ...none, summaryTokens: 15 }, 130, rules);
    expect(cut).toMatchObject({ covered: 2, kept: [], evicted: [], tokens: 128 });
  });

  it('drops nothing when the view already fits', () => {
    expect(planDegrade(layout(chat(100, 100)), none, 1000, rules)).toMatchObject({ covered: 0, tokens: 253 });
  });

  it('never drops the newest unit, nor the task of the cut round', () => {
    const specs = [user(10), asst(10, 'a'), result(400, 'a'), asst(10, 'b'), result(400, 'b'), asst(10)];
    expect(planDegrade(layout(specs), none, 300, rules)).toMatchObject({ covered: 5, kept: [0], tokens: 73 });
    expect(planDegrade(layout([user(10), asst(5000)]), none, 1000, rules)).toMatchObject({ covered: 0, tokens: 5063 });
    expect(planDegrade(layout([user(5000)]), none, 1000, rules)).toMatchObject({ covered: 0 });
  });

  it('clears what can be cleared before dropping anything', () => {
    const specs = [user(10), asst(10, 'a'), result(400, 'a'), asst(10, 'b'), result(400, 'b'), asst(10)];
    expect(planDegrade(layout(specs), none, 600, { ...rules, clearing })).toMatchObject({ covered: 0, cleared: [2, 4] });
  });
});

describe('planPrepare', () => {
  it('is null at or under prepare × budget', () => {
    expect(planPrepare(layout(chat(300, 447)), none, 1000, rules)).toBeNull();
  });

  it('aims below the target by the growth expected before use (trigger − prepare)', () => {
    // 853 > 800; limit (0.6 − 0.2) × 1000 − 101 − 53 = 246: keep only the last round (200).
    expect(planPrepare(layout(chat(400, 200, 200)), none, 1000, rules)).toMatchObject({ covered: 4 });
    // With prepare at the trigger there is no growth to allow for: limit 446, keep 200 + 200.
    expect(planPrepare(layout(chat(400, 200, 200)), none, 1000, { ...rules, prepare_ratio: 0.8, trigger_ratio: 0.8 })).toMatchObject({ covered: 2 });
  });

  it('is null when nothing would be evicted, or when clearing will do at no cost once it is needed', () => {
    expect(planPrepare(layout([user(850)]), none, 1000, rules)).toBeNull();
    const specs = [user(10), asst(10, 'a'), result(800, 'a'), asst(10)];
    expect(planPrepare(layout(specs), none, 1000, { ...rules, clearing })).toBeNull();
    expect(planPrepare(layout(specs), none, 1000, rules)).not.toBeNull();
  });
});
