import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './scan.js';

// Where a JSON object or array ends, when it ends within the first `limit` bytes: the key of a
// short item in the cache of seen items (seen-items.ts), looked for at every item of every request.
// Unlike the scanner's valueEnd (body/scan.ts), it never reads past the limit, not even to the end
// of a string that starts before it (a tool result's text runs for kilobytes), and it checks
// nothing: what it finds only picks the kept items to compare byte for byte.

/** Just after the container opening at `pos` when it closes within `limit` bytes, else -1. */
export function endWithin(buf: Buffer, pos: number, limit: number): number {
  const stop = Math.min(buf.length, pos + limit);
  let depth = 0;
  let inString = false;
  for (let i = pos; i < stop; i++) {
    const b = buf[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
    else if ((b === CLOSE_OBJECT || b === CLOSE_ARRAY) && --depth === 0) return i + 1;
  }
  return -1;
}
