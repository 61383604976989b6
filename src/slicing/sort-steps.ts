import { STEP_EVERY, type Steps } from './slicer.js';

// Array.prototype.sort holds the event loop for the whole sort: an agent's long span has 100k+
// ledger candidates, whose sort held it ~50 ms (the hardening bench). Here runs of STEP_EVERY items
// are sorted natively and then merged pass by pass, with a yield every STEP_EVERY items merged.
// Stable, as Array.prototype.sort is: an item goes before an equal one that came after it, so the
// order is the one Array.prototype.sort gives.

/** `items` sorted by `compare` (a new array), in steps. */
export function* sortSteps<T>(items: readonly T[], compare: (a: T, b: T) => number): Steps<T[]> {
  let from: T[] = [];
  for (let start = 0; start < items.length; start += STEP_EVERY) {
    for (const item of items.slice(start, start + STEP_EVERY).sort(compare)) from.push(item);
    yield;
  }
  let to = new Array<T>(from.length);
  let merged = 0;
  for (let width = STEP_EVERY; width < from.length; width *= 2) {
    for (let lo = 0; lo < from.length; lo += 2 * width) {
      const mid = Math.min(lo + width, from.length);
      const hi = Math.min(lo + 2 * width, from.length);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid || j < hi) {
        // The right run's item goes first only when strictly smaller: equal items keep their order.
        const right = i >= mid || (j < hi && compare(from[j]!, from[i]!) < 0);
        to[k++] = right ? from[j++]! : from[i++]!;
        if (++merged % STEP_EVERY === 0) yield;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
