import type { Pause } from '../slicing/slicer.js';

// What a parsed JSON value takes in V8's heap, estimated from its bytes, so that the cache of
// parsed items (seen-items.ts) is bounded by memory. Text takes up to twice its bytes: a string
// JSON.parse reads without escapes may be a slice that keeps the whole source text alive (930 KB
// of prose in one string held 1.86 MB, measured). Every object, array, member and element costs
// tens of bytes more whatever its text (`[{},{},...]` took 22 times its bytes, an object of 50k
// numeric members 7 times). Hence twice the bytes plus a price per structural character (`{`,
// `[`, `,`, `:`), those inside strings included, which only makes the estimate larger for prose
// full of commas.

/** What one object, array, member or element costs beyond its text, about (V8's slots, maps and headers). */
const STRUCTURE_BYTES = 48;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const COMMA = 0x2c;
const COLON = 0x3a;

/** The estimate worked out in slices of CHUNK_BYTES with `pause` between them: a big item costs a loop over its bytes. */
export async function parsedBytesEstimateSliced(buf: Buffer, start: number, end: number, pause: Pause): Promise<number> {
  let total = 0;
  for (let at = start; at < end; at += CHUNK_BYTES) {
    total += parsedBytesEstimate(buf, at, Math.min(end, at + CHUNK_BYTES));
    const due = pause();
    if (due) await due;
  }
  return total;
}

// About a quarter of a millisecond of the loop below.
const CHUNK_BYTES = 256 * 1024;

export function parsedBytesEstimate(buf: Buffer, start: number, end: number): number {
  let structural = 0;
  for (let i = start; i < end; i++) {
    const b = buf[i];
    if (b === OPEN_OBJECT || b === OPEN_ARRAY || b === COMMA || b === COLON) structural++;
  }
  return 2 * (end - start) + structural * STRUCTURE_BYTES;
}
