import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ItemKind } from './items.js';
import type { BaseView, Layout } from './layout.js';
import { type PlanRules, planPrepare, prepareRoom } from './plan.js';
import { segment } from './units.js';

// prepareRoom is what later requests of a conversation may add without a look of their own
// (pipeline/prepare-room.ts): whatever follows the view, fewer tokens than the room never makes
// planPrepare return a cut, with or without clearing.

interface Spec {
  kind: ItemKind;
  tokens: number;
  call?: string;
  of?: string;
}

function layout(specs: readonly Spec[]): Layout {
  const items = specs.map((s) => ({ kind: s.kind, calls: s.call ? [{ id: s.call, name: 'f' }] : [], resultOf: s.of ?? null }));
  return { seg: segment(items, () => false), tokens: specs.map((s) => s.tokens), fixedTokens: 53, stubTokens: () => 20 };
}
const none: BaseView = { covered: 0, kept: [], cleared: new Set(), summaryTokens: 0 };

/** One request's worth of items: a user turn and a reply, or a tool step (a call and its result). */
const turn = fc.oneof(
  fc.tuple(fc.integer({ min: 5, max: 120 }), fc.integer({ min: 5, max: 200 })).map(([u, a]): Spec[] => [
    { kind: 'user', tokens: u },
    { kind: 'assistant', tokens: a },
  ]),
  fc.tuple(fc.integer({ min: 5, max: 40 }), fc.integer({ min: 5, max: 400 })).map(([a, r]): Spec[] => [
    { kind: 'assistant', tokens: a, call: 'c' },
    { kind: 'result', tokens: r, of: 'c' },
  ]),
);
/** Call ids made unique, so that each result answers its own call. */
const numbered = (turns: Spec[][]): Spec[] => turns.flatMap((t, i) => t.map((s) => ({ ...s, ...(s.call ? { call: `c${i}` } : {}), ...(s.of ? { of: `c${i}` } : {}) })));

/** Target and prepare lines: as configured by default, or anywhere below the trigger (a prepare line under the target too). */
const ratios = fc.oneof(fc.constant([0.6, 0.8] as const), fc.tuple(fc.double({ min: 0.2, max: 0.95, noNaN: true }), fc.double({ min: 0.2, max: 0.95, noNaN: true })));

describe('prepareRoom', () => {
  it('is what may follow the view without planPrepare finding a cut', () => {
    fc.assert(
      fc.property(
        fc.array(turn, { minLength: 2, maxLength: 20 }),
        fc.array(turn, { minLength: 1, maxLength: 6 }),
        fc.option(fc.integer({ min: 1, max: 3 })),
        ratios,
        (before, after, keep, [target, prepare]) => {
          const rules: PlanRules = {
            trigger_ratio: 1.0,
            target_ratio: target,
            prepare_ratio: prepare,
            summary_max_tokens: 4,
            keepInstructions: true,
            clearing: keep === null ? null : { keepLastSteps: keep, minTokens: 50 },
            taskMaxShare: 0,
          };
          const specs = numbered([[{ kind: 'user', tokens: 30 }], ...before]);
          const room = prepareRoom(layout(specs), none, 1500, rules);
          const grown = numbered([[{ kind: 'user', tokens: 30 }], ...before, ...after]);
          const added = grown.slice(specs.length).reduce((n, s) => n + s.tokens, 0);
          if (added < room) expect(planPrepare(layout(grown), none, 1500, rules)).toBeNull();
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('counts what clearing every clearable result leaves when that brings the view under the target', () => {
    const specs = numbered([
      [{ kind: 'user', tokens: 10 }],
      ...Array.from({ length: 4 }, (): Spec[] => [
        { kind: 'assistant', tokens: 10, call: 'c' },
        { kind: 'result', tokens: 300, of: 'c' },
      ]),
    ]);
    const rules: PlanRules = {
      trigger_ratio: 1.0,
      target_ratio: 0.6,
      prepare_ratio: 0.8,
      summary_max_tokens: 4,
      keepInstructions: true,
      clearing: { keepLastSteps: 1, minTokens: 100 },
      taskMaxShare: 0,
    };
    // 53 + 10 + 4 × 310 = 1303, past 0.8 × 1500: two cleared results (280 each) bring it under
    // 0.6 × 1500 now, and the third (the newest step's is kept) goes too once more follows: 463 left, 437 under.
    expect(prepareRoom(layout(specs), none, 1500, rules)).toBe(437);
    expect(prepareRoom(layout(specs), none, 1500, { ...rules, clearing: null })).toBe(1200 - 1303);
  });
});
