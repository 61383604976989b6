import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NeutralItem } from './items.js';
import { extendSegmentationSteps, type Segmentation, segment } from './units.js';
import { runSync } from '../slicing/slicer.js';

// A request that extends the previous one of its conversation is segmented from that one's
// segmentation (the reused path, pipeline/analysis-memo.ts): whatever it decides must be what
// segmenting the whole request decides.

const item = fc.oneof(
  fc.constant<NeutralItem>({ kind: 'instruction', calls: [], resultOf: null }),
  fc.constant<NeutralItem>({ kind: 'user', calls: [], resultOf: null }),
  fc.constant<NeutralItem>({ kind: 'other', calls: [], resultOf: null }),
  fc.constant<NeutralItem>({ kind: 'assistant', calls: [], resultOf: null }),
  // Calls and results over a few ids, so that results meet calls near, far, twice, or never.
  fc
    .array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 3 })
    .map((ids): NeutralItem => ({ kind: 'assistant', calls: ids.map((id) => ({ id: `c${id}`, name: `f${id}` })), resultOf: null })),
  fc.option(fc.integer({ min: 0, max: 5 })).map((id): NeutralItem => ({ kind: 'result', calls: [], resultOf: id === null ? null : `c${id}` })),
);

/** Everything a planner reads from a segmentation, unit starts included. */
function shape(seg: Segmentation, items: number) {
  const starts = Array.from({ length: items + 1 }, (_, i) => seg.unitAt.get(i) ?? null);
  const { unitAt: _unitAt, ...rest } = seg;
  return { ...rest, starts };
}

const none = () => false;
const seg = (items: readonly NeutralItem[]) => segment(items, none);

describe('extendSegmentationSteps', () => {
  const stats = { extended: 0, whole: 0 };
  it('segments a request that adds items to the previous one as segmenting it whole does, over random growth', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), fc.array(fc.array(item, { maxLength: 6 }), { minLength: 1, maxLength: 8 }), (first, growth) => {
        let items = first;
        let previous = seg(items);
        for (const added of growth) {
          const next = [...items, ...added];
          const extended = runSync(extendSegmentationSteps(previous, items.length, next, none));
          const whole = seg(next);
          if (extended) expect(shape(extended, next.length)).toEqual(shape(whole, next.length));
          if (extended) stats.extended++;
          else stats.whole++;
          // The next request extends whichever it got, as the request path does.
          previous = extended ?? whole;
          items = next;
        }
      }),
      { numRuns: 400 },
    );
    // Most growth is extended, not segmented whole again.
    expect(stats.extended).toBeGreaterThan(stats.whole);
  });

  it('leaves the segmentation it extends as it was (an older request may still plan with it)', () => {
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 30 }), fc.array(item, { minLength: 1, maxLength: 6 }), (first, added) => {
        const previous = seg(first);
        const before = structuredClone(shape(previous, first.length));
        runSync(extendSegmentationSteps(previous, first.length, [...first, ...added], none));
        expect(shape(previous, first.length)).toEqual(before);
      }),
      { numRuns: 200 },
    );
  });

  it('extends across an agent task without segmenting it whole, and refuses a result whose call may sit before the last unit', () => {
    const user: NeutralItem = { kind: 'user', calls: [], resultOf: null };
    const call = (id: string): NeutralItem => ({ kind: 'assistant', calls: [{ id, name: 'f' }], resultOf: null });
    const result = (id: string): NeutralItem => ({ kind: 'result', calls: [], resultOf: id });
    const items = [user, call('a'), result('a'), call('b'), result('b')];
    const extended = runSync(extendSegmentationSteps(seg(items), items.length, [...items, call('c'), result('c')], none));
    expect(extended?.units.map((u) => [u.start, u.end, u.kind])).toEqual([
      [0, 1, 'head'],
      [1, 3, 'step'],
      [3, 5, 'step'],
      [5, 7, 'step'],
    ]);
    // A user message between a call and its result joins every unit in between: the whole is segmented again.
    expect(runSync(extendSegmentationSteps(seg([...items, call('d'), user]), items.length + 2, [...items, call('d'), user, result('d')], none))).toBeNull();
  });

  it("refuses when the pinned block reads otherwise now (another key says which summary is recap's own)", () => {
    const instruction: NeutralItem = { kind: 'instruction', calls: [], resultOf: null };
    const user: NeutralItem = { kind: 'user', calls: [], resultOf: null };
    const items = [instruction, user];
    expect(runSync(extendSegmentationSteps(seg(items), 2, [...items, user], (i) => i === 0))).toBeNull();
    expect(runSync(extendSegmentationSteps(seg(items), 2, [...items, user], none))).not.toBeNull();
  });

  it('refuses a previous segmentation of other items than the request starts with', () => {
    const user: NeutralItem = { kind: 'user', calls: [], resultOf: null };
    expect(runSync(extendSegmentationSteps(seg([user, user]), 3, [user, user, user], none))).toBeNull();
    expect(runSync(extendSegmentationSteps(seg([]), 0, [user], none))).toBeNull();
  });
});
