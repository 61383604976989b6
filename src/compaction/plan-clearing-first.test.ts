import { describe, expect, it } from 'vitest';
import type { NeutralItem } from './items.js';
import type { BaseView, Layout } from './layout.js';
import { type PlanRules, planCompaction, planInterim, planPrepare } from './plan.js';
import { segment } from './units.js';

// Rules 10 and 11 together on an agent's task, whose steps bring large tool results: background
// preparation must not make a summary that compacting inline would never make, because inline the
// overflow is cleared at no cost. Seen in the agent-task bench: 26 background summaries against 10
// inline, because the job counted the clearing out when it could not reach the lower line the
// prepared summary aims at, although it reached the target that inline clearing aims at.

// Every layout has 53 fixed tokens (pinned + priming) and 20-token stubs; summary_max_tokens 4.
const rules: PlanRules = {
  trigger_ratio: 1.0,
  target_ratio: 0.6,
  prepare_ratio: 0.8,
  summary_max_tokens: 4,
  keepInstructions: true,
  clearing: { keepLastSteps: 1, minTokens: 100 },
  taskMaxShare: 0,
};
const none: BaseView = { covered: 0, kept: [], cleared: new Set(), summaryTokens: 0 };

/** The task (10 tokens), then one step per result size: a 10-token call and its result. */
function task(...results: number[]): Layout {
  const items: NeutralItem[] = [{ kind: 'user', calls: [], resultOf: null }];
  const tokens = [10];
  results.forEach((size, i) => {
    const id = `c${i}`;
    items.push({ kind: 'assistant', calls: [{ id, name: 'f' }], resultOf: null }, { kind: 'result', calls: [], resultOf: id });
    tokens.push(10, size);
  });
  return { seg: segment(items, () => false), tokens, fixedTokens: 53, stubTokens: () => 20 };
}

describe('background preparation next to clearing', () => {
  it('prepares nothing when clearing reaches the target, as the inline overflow will then clear at no cost', () => {
    // 53 + 10 + 3 × 210 + 260 = 953, over the prepare line (800). Clearing the three older results
    // saves 3 × 180: 413, under the target (600) though not under the line a summary would aim at (400).
    const now = task(200, 200, 200, 250);
    expect(planPrepare(now, none, 1000, rules)).toBeNull();
    // Two more steps later the overflow comes, and inline it is a clearing, not a summary.
    const overflow = task(200, 200, 200, 250, 100, 200);
    expect(planCompaction(overflow, none, 1000, rules).kind).toBe('clear');
  });

  it('still prepares a summary when clearing cannot reach the target', () => {
    // Results under the minimum size are never cleared: only a summary helps.
    expect(planPrepare(task(90, 90, 90, 90, 90, 90, 90, 90), none, 1000, rules)).toMatchObject({ kept: [0] });
  });
});

describe('planInterim', () => {
  it('clears all it can when that brings the view under the trigger, though not to the target', () => {
    // 53 + 10 + 3 × 210 + 710 = 1403; clearing the three older results: 863, over the target (600).
    const l = task(200, 200, 200, 700);
    expect(planCompaction(l, none, 1000, rules).kind).toBe('summarize');
    expect(planInterim(l, none, 1000, rules)).toEqual({ covered: 0, kept: [], cleared: [2, 4, 6], evicted: [], tokens: 863 });
  });

  it('is null when even clearing everything leaves the view over the trigger, or without clearing', () => {
    expect(planInterim(task(200, 200, 200, 1000), none, 1000, rules)).toBeNull();
    expect(planInterim(task(200, 200, 200, 700), none, 1000, { ...rules, clearing: null })).toBeNull();
  });
});
