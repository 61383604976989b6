import { setImmediate as nextMacrotask } from 'node:timers/promises';

// Long synchronous work on a big request (parsing, hashing, tokenizing, rendering a transcript)
// is cut into slices with a turn of the event loop between them, so that other requests, health
// checks and streams are served meanwhile.

/** Whether the current slice is used up: then await the promise returned, else go on. */
export type Pause = () => Promise<void> | undefined;

/** A slice of the request path's work: other requests wait about this long at most behind one. */
export const SLICE_MS = 4;

/** A pause that yields once the current slice of synchronous work has run `sliceMs`. */
export function createSlicer(sliceMs: number): Pause {
  let sliceStart = performance.now();
  return () => {
    if (performance.now() - sliceStart < sliceMs) return undefined;
    return nextMacrotask().then(() => {
      sliceStart = performance.now();
    });
  };
}

/** Never yields: the same code run in one go (the CLI, tests, small inputs). */
export const noPause: Pause = () => undefined;

/**
 * Work written as a generator that yields now and then (every STEP_EVERY iterations of its loops),
 * so that one piece of code runs either in one go (runSync: pure callers, tests) or in slices on
 * the request path (runSliced).
 */
export type Steps<T> = Generator<undefined, T, undefined>;

/** How many iterations of a loop go between two yields of a Steps generator. */
export const STEP_EVERY = 4096;

export function runSync<T>(steps: Steps<T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

export async function runSliced<T>(steps: Steps<T>, pause: Pause): Promise<T> {
  let step = steps.next();
  while (!step.done) {
    const due = pause();
    if (due) await due;
    step = steps.next();
  }
  return step.value;
}
