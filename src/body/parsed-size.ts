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

/** How many backslashes stand right before `end`, none of them before `from`. */
function backslashesBefore(buf: Buffer, from: number, end: number): number {
  let i = end;
  while (i > from && buf[i - 1] === BACKSLASH) i--;
  return end - i;
}

/**
 * Counts the structural characters of buf[start, end) into `scan`. A string's bytes are skipped
 * with Buffer.indexOf (memchr) from quote to quote, a quote after an odd run of backslashes being
 * escaped: most of an item's bytes are its texts, so this costs a pass over their quotes.
 */
function scanPart(buf: Buffer, start: number, end: number, scan: Scan): void {
  let { structural, inString, escaped } = scan;
  let i = start;
  while (i < end) {
    if (!inString) {
      const b = buf[i++];
      if (b === QUOTE) inString = true;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY || b === COMMA || b === COLON) structural++;
      continue;
    }
    if (escaped) {
      escaped = false;
      i++;
      continue;
    }
    const quote = buf.indexOf(QUOTE, i);
    if (quote === -1 || quote >= end) {
      // The string goes on past this part: it ends on an escape when an odd run of backslashes does.
      escaped = backslashesBefore(buf, i, end) % 2 === 1;
      i = end;
    } else {
      inString = backslashesBefore(buf, i, quote) % 2 === 1;
      i = quote + 1;
    }
  }
  Object.assign(scan, { structural, inString, escaped });
}

const estimate = (bytes: number, scan: Scan) => 2 * bytes + scan.structural * STRUCTURE_BYTES;

export function parsedBytesEstimate(buf: Buffer, start: number, end: number): number {
  const scan = { structural: 0, inString: false, escaped: false };
  scanPart(buf, start, end, scan);
  return estimate(end - start, scan);
}

// At most about a quarter of a millisecond of the loop above (bytes outside strings; text goes faster).
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
