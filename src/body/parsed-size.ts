import { BACKSLASH, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './scan.js';
import type { Pause } from '../slicing/slicer.js';

// What a parsed JSON value takes in V8's heap, estimated from its bytes, so that the cache of
// parsed items (seen-items.ts) is bounded by memory. Text takes up to twice its bytes: a string
// JSON.parse reads without escapes may be a slice that keeps the whole source text alive (930 KB
// of prose in one string held 1.86 MB, measured). Every object, array, member and element costs
// tens of bytes more whatever its text (`[{},{},...]` took 22 times its bytes, an object of 50k
// numeric members 7 times). Hence twice the bytes plus a price per structural character (`{`,
// `[`, `,`, `:` outside strings).

/** What one object, array, member or element costs beyond its text, about (V8's slots, maps and headers). */
const STRUCTURE_BYTES = 48;

/** Where a pass over part of a value left off: structural characters so far, and whether inside a string, after a backslash. */
interface Scan {
  structural: number;
  inString: boolean;
  escaped: boolean;
}

function scanPart(buf: Buffer, start: number, end: number, scan: Scan): void {
  let { structural, inString, escaped } = scan;
  for (let i = start; i < end; i++) {
    const b = buf[i];
    if (escaped) escaped = false;
    else if (inString) {
      if (b === BACKSLASH) escaped = true;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY || b === COMMA || b === COLON) structural++;
  }
  Object.assign(scan, { structural, inString, escaped });
}

const estimate = (bytes: number, scan: Scan) => 2 * bytes + scan.structural * STRUCTURE_BYTES;

export function parsedBytesEstimate(buf: Buffer, start: number, end: number): number {
  const scan = { structural: 0, inString: false, escaped: false };
  scanPart(buf, start, end, scan);
  return estimate(end - start, scan);
}

// About a quarter of a millisecond of the loop above.
const CHUNK_BYTES = 256 * 1024;

/** The same estimate worked out in slices of CHUNK_BYTES with `pause` between them: a big item costs a loop over its bytes. */
export async function parsedBytesEstimateSliced(buf: Buffer, start: number, end: number, pause: Pause): Promise<number> {
  const scan = { structural: 0, inString: false, escaped: false };
  for (let at = start; at < end; at += CHUNK_BYTES) {
    scanPart(buf, at, Math.min(end, at + CHUNK_BYTES), scan);
    const due = pause();
    if (due) await due;
  }
  return estimate(end - start, scan);
}
