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
