import { describe, expect, it } from 'vitest';
import { planCompaction, planDegrade, planPrepare, roundCosts, type RoundCost, type ViewCosts } from './plan.js';

// summary_max_tokens 4 reserves summaryReservation(4) = 101 tokens for the summary message (framing included).
const ratios = { trigger_ratio: 1.0, target_ratio: 0.6, summary_max_tokens: 4, prepare_ratio: 0.8 };
const rounds = (...tokens: number[]): RoundCost[] => tokens.map((t) => ({ messages: 2, tokens: t }));
const view = (r: RoundCost[], extra: Partial<ViewCosts> = {}): ViewCosts => ({
  pinnedTokens: 50,
  summaryTokens: 0,
  primingTokens: 3,
  rounds: r,
  ...extra,
});

describe('planCompaction', () => {
  it('fits at or under trigger × budget', () => {
    expect(planCompaction(view(rounds(400, 547)), 1000, ratios)).toEqual({ kind: 'fits', viewTokens: 1000 });
    expect(planCompaction(view(rounds(400, 547)), 1000, { ...ratios, trigger_ratio: 0.9 }).kind).toBe('compact');
  });

  it('evicts the fewest whole rounds that bring the kept tail under target × budget − summary reservation', () => {
    // limit = 600 − 101 = 499; pinned + priming = 53; keeping 150+150+140 = 440 → 493 fits, 300 more does not.
    const plan = planCompaction(view(rounds(300, 300, 150, 150, 140)), 1000, ratios);
    expect(plan).toEqual({ kind: 'compact', viewTokens: 1093, rounds: 2, messages: 4 });
  });

  it('never evicts the newest round, even when it alone stays over the target', () => {
    const plan = planCompaction(view(rounds(10, 10, 2000)), 1000, ratios);
    expect(plan).toMatchObject({ kind: 'compact', rounds: 2, messages: 4 });
  });

  it('is irreducible when only the newest round is left, or no round at all', () => {
    expect(planCompaction(view(rounds(5000)), 1000, ratios)).toEqual({ kind: 'irreducible', viewTokens: 5053 });
    expect(planCompaction(view([], { pinnedTokens: 5000 }), 1000, ratios).kind).toBe('irreducible');
    expect(planCompaction(view(rounds(900), { summaryTokens: 200 }), 1000, ratios).kind).toBe('irreducible');
  });

  it('evicts at least one round when only an oversized current summary is over the trigger', () => {
    const plan = planCompaction(view(rounds(100, 100), { summaryTokens: 900 }), 1000, ratios);
    expect(plan).toMatchObject({ kind: 'compact', rounds: 1 });
  });

  it('counts messages of uneven rounds', () => {
    const r = [
      { messages: 5, tokens: 600 },
      { messages: 1, tokens: 100 },
      { messages: 3, tokens: 400 },
    ];
    expect(planCompaction(view(r), 1000, ratios)).toMatchObject({ kind: 'compact', rounds: 2, messages: 6 });
  });
});

describe('hysteresis', () => {
  /** Turns of `roundTokens` each, compacting whenever planned; returns the turns that compacted. */
  function simulate(targetRatio: number, turns: number): number[] {
    const summaryTokens = 80;
    let view: ViewCosts = { pinnedTokens: 50, summaryTokens: 0, primingTokens: 3, rounds: [] };
    const compactedAt: number[] = [];
    for (let turn = 0; turn < turns; turn++) {
      view = { ...view, rounds: [...view.rounds, { messages: 2, tokens: 40 }] };
      const plan = planCompaction(view, 1000, { ...ratios, target_ratio: targetRatio });
      if (plan.kind !== 'compact') continue;
      compactedAt.push(turn);
      view = { ...view, summaryTokens, rounds: view.rounds.slice(plan.rounds) };
    }
    return compactedAt;
  }

  it('lets ten more turns of similar size fit after a compaction', () => {
    const compactedAt = simulate(0.6, 80);
    expect(compactedAt.length).toBeGreaterThan(2);
    // After compacting, the view is at most 600 tokens; 40-token turns need > 10 turns to pass 1000.
    for (let i = 1; i < compactedAt.length; i++) expect(compactedAt[i]! - compactedAt[i - 1]!).toBeGreaterThan(10);
  });

  it('would summarize on nearly every turn with a target just under the trigger', () => {
    const compactedAt = simulate(0.99, 80);
    const gaps = compactedAt.slice(1).map((t, i) => t - compactedAt[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(2);
  });
});

describe('planDegrade', () => {
  it('drops the oldest rounds until the view fits the budget, keeping pinned and the previous summary', () => {
    // fixed = 10 + 15 + 0 = 25; 25 + 80 > 70, 25 + 60 > 70, 25 + 40 = 65 fits.
    const v = view(rounds(20, 20, 20, 20), { pinnedTokens: 10, summaryTokens: 15, primingTokens: 0 });
    expect(planDegrade(v, 70)).toEqual({ rounds: 2, messages: 4 });
  });

  it('drops nothing when the view already fits', () => {
    expect(planDegrade(view(rounds(100, 100)), 1000)).toEqual({ rounds: 0, messages: 0 });
  });

  it('never drops the newest round', () => {
    expect(planDegrade(view(rounds(10, 10, 5000)), 1000)).toEqual({ rounds: 2, messages: 4 });
    expect(planDegrade(view(rounds(5000)), 1000)).toEqual({ rounds: 0, messages: 0 });
  });
});

describe('planPrepare', () => {
  it('is null at or under prepare × budget', () => {
    expect(planPrepare(view(rounds(300, 447)), 1000, ratios)).toBeNull();
  });

  it('aims below the target by the growth expected before use (trigger − prepare)', () => {
    // 853 > 800; limit (0.6 − 0.2) × 1000 − 101 = 299, minus 53 fixed: keep only the last 200.
    expect(planPrepare(view(rounds(400, 200, 200)), 1000, ratios)).toEqual({ rounds: 2, messages: 4 });
    // With prepare at the trigger there is no growth to allow for: limit 499 − 53, keep 200 + 200.
    expect(planPrepare(view(rounds(400, 200, 200)), 1000, { ...ratios, prepare_ratio: 0.8, trigger_ratio: 0.8 })).toEqual({ rounds: 1, messages: 2 });
  });

  it('is null when nothing would be evicted', () => {
    expect(planPrepare(view(rounds(850)), 1000, ratios)).toBeNull();
  });
});

describe('roundCosts', () => {
  it('sums per-message tokens over each round', () => {
    const costs = roundCosts(
      [
        { start: 2, end: 4 },
        { start: 4, end: 7 },
      ],
      [100, 100, 5, 6, 1, 2, 3],
    );
    expect(costs).toEqual([
      { messages: 2, tokens: 11 },
      { messages: 3, tokens: 6 },
    ]);
  });
});
