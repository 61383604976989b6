import { describe, expect, it } from 'vitest';
import { runSync, STEP_EVERY } from './slicer.js';
import { sortSteps } from './sort-steps.js';

interface Item {
  key: number;
  at: number;
}

const byKey = (a: Item, b: Item) => a.key - b.key;

/** `n` items with keys spread over `keys` values in no order (a multiplicative hash of the index), many equal when `keys` is small. */
function items(n: number, keys: number, seed: number): Item[] {
  return Array.from({ length: n }, (_, at) => ({ key: (Math.imul(at + seed, 2654435761) >>> 0) % keys, at }));
}

describe('sortSteps', () => {
  it.each([0, 1, 2, STEP_EVERY - 1, STEP_EVERY, STEP_EVERY + 1, 3 * STEP_EVERY + 17, 9 * STEP_EVERY])(
    'gives what Array.prototype.sort gives, equal items in their order, for %i items',
    (n) => {
      for (const keys of [3, 1000, 1e9]) {
        const input = items(n, keys, n + keys);
        const copy = input.slice();
        expect(runSync(sortSteps(input, byKey))).toEqual(input.slice().sort(byKey));
        expect(input).toEqual(copy);
      }
    },
  );

  it('yields every STEP_EVERY items sorted or merged', () => {
    const steps = sortSteps(items(20 * STEP_EVERY, 1e9, 7), byKey);
    let yields = 0;
    while (!steps.next().done) yields++;
    // 20 runs sorted, then 5 passes (runs of 1, 2, 4, 8 and 16 STEP_EVERY merged) over all 20 runs' items.
    expect(yields).toBe(20 + 5 * 20);
  });
});
