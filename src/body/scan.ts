// Where the members of a JSON object and the elements of a JSON array sit in the raw bytes, so
// that a route can replace one member's bytes and forward every other byte as the client wrote
// it (docs/design.md rule 12), and find a key given twice. A scanner of structure only: it follows
// strings, escapes, nesting, colons and commas; JSON.parse still reads the values. Strings are
// skipped with Buffer.indexOf (memchr), so a body that is mostly text costs little more than a
// pass over its quotes; the rest is one loop over the bytes outside strings, never recursion.
//
// Structure is checked at the level scanned (a missing comma or colon, a trailing comma, a
// value where a key belongs): a nested value is only skipped, by bracket counting, and must be
// checked by whoever reads it (JSON.parse, or another scan).

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;

/** A value's bytes: `buf.subarray(start, end)`. */
export interface Span {
  start: number;
  end: number;
}

export interface Member {
  /** The key as JSON.parse reads it (escapes decoded: `"me\u0073sages"` is `messages`). */
  key: string;
  /** The key's opening quote. */
  keyStart: number;
  value: Span;
}

export class JsonScanError extends SyntaxError {
  constructor(
    what: string,
    readonly position: number,
  ) {
    super(`${what} at position ${position}`);
  }
}

function isWhitespace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** The first position at or after `pos` that is not JSON whitespace. */
export function skipWhitespace(buf: Buffer, pos: number): number {
  while (isWhitespace(buf[pos])) pos++;
  return pos;
}

/** The position just after the string whose opening quote is at `pos`. */
function stringEnd(buf: Buffer, pos: number): number {
  let close = buf.indexOf(QUOTE, pos + 1);
  while (close !== -1) {
    // The quote is escaped when an odd number of backslashes stands right before it.
    let backslashes = 0;
    while (buf[close - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close + 1;
    close = buf.indexOf(QUOTE, close + 1);
  }
  throw new JsonScanError('Unterminated string', pos);
}

/**
 * The position just after the value that starts at `pos` (no whitespace before it); -1 when that
 * value is an object or array longer than `within` bytes.
 */
export function valueEnd(buf: Buffer, pos: number, within = Infinity): number {
  const first = buf[pos];
  if (first === QUOTE) return stringEnd(buf, pos);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number or literal runs to the next structural character or whitespace.
    let end = pos;
    for (let b = buf[end]; b !== undefined && b !== COMMA && b !== CLOSE_OBJECT && b !== CLOSE_ARRAY && !isWhitespace(b); b = buf[++end]);
    if (end === pos) throw new JsonScanError('Expected a value', pos);
    return end;
  }
  let depth = 0;
  const stop = Math.min(buf.length, pos + within);
  for (let i = pos; i < stop; i++) {
    const b = buf[i];
    if (b === QUOTE) i = stringEnd(buf, i) - 1;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
    else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      if (--depth === 0) return i + 1;
    }
  }
  if (stop < buf.length) return -1;
  throw new JsonScanError('Unterminated object or array', pos);
}

function decodeKey(buf: Buffer, start: number, end: number): string {
  // JSON.parse of the key alone checks it (escapes, control characters) and decodes it.
  return JSON.parse(buf.toString('utf8', start, end)) as string;
}

/** The first item's position inside the container opening at `open`, or -1 when it is empty. */
export function firstItem(buf: Buffer, open: number, close: number): number {
  const pos = skipWhitespace(buf, open + 1);
  return buf[pos] === close ? -1 : pos;
}

/**
 * After an item that ended at `itemEnd`: the next item's position, or -1 when the container's
 * closing bracket follows (then containerEnd gives the position after it).
 */
export function nextItem(buf: Buffer, itemEnd: number, close: number): number {
  const pos = skipWhitespace(buf, itemEnd);
  const b = buf[pos];
  if (b === close) return -1;
  if (b !== COMMA) throw new JsonScanError(b === undefined ? 'Unexpected end of JSON' : 'Expected a comma or a closing bracket', pos);
  return skipWhitespace(buf, pos + 1);
}

/** Just after the closing bracket that follows the last item (or the opening one, when empty). */
export function containerEnd(buf: Buffer, from: number): number {
  return skipWhitespace(buf, from) + 1;
}

/** A member's key and where its value starts, for the key whose opening quote is at `keyStart`. */
export function memberKey(buf: Buffer, keyStart: number): { key: string; valueStart: number } {
  if (buf[keyStart] !== QUOTE) throw new JsonScanError('Expected a string key', keyStart);
  const keyEnd = stringEnd(buf, keyStart);
  const colon = skipWhitespace(buf, keyEnd);
  if (buf[colon] !== COLON) throw new JsonScanError('Expected a colon', colon);
  return { key: decodeKey(buf, keyStart, keyEnd), valueStart: skipWhitespace(buf, colon + 1) };
}

/** Calls `item` with each item's start (it returns the item's end); the end of the container. */
function eachItem(buf: Buffer, open: number, close: number, item: (start: number) => number): number {
  let pos = firstItem(buf, open, close);
  let last = open + 1;
  while (pos !== -1) {
    last = item(pos);
    pos = nextItem(buf, last, close);
  }
  return containerEnd(buf, last);
}

export interface Scanned<T> {
  items: T[];
  /** Just after the container's closing bracket. */
  end: number;
}

/** The members of the object whose `{` is at `open`, in the order written (duplicates included). */
export function objectMembers(buf: Buffer, open: number): Scanned<Member> {
  if (buf[open] !== OPEN_OBJECT) throw new JsonScanError('Expected an object', open);
  const items: Member[] = [];
  const end = eachItem(buf, open, CLOSE_OBJECT, (keyStart) => {
    const { key, valueStart } = memberKey(buf, keyStart);
    const value = { start: valueStart, end: valueEnd(buf, valueStart) };
    items.push({ key, keyStart, value });
    return value.end;
  });
  return { items, end };
}

/** The elements of the array whose `[` is at `open`. */
export function arrayElements(buf: Buffer, open: number): Scanned<Span> {
  if (buf[open] !== OPEN_ARRAY) throw new JsonScanError('Expected an array', open);
  const items: Span[] = [];
  const end = eachItem(buf, open, CLOSE_ARRAY, (start) => {
    const span = { start, end: valueEnd(buf, start) };
    items.push(span);
    return span.end;
  });
  return { items, end };
}

/** The members of a whole document that is one object (whitespace around it allowed). */
export function documentMembers(buf: Buffer): Member[] {
  const { items, end } = objectMembers(buf, skipWhitespace(buf, 0));
  const rest = skipWhitespace(buf, end);
  if (rest !== buf.length) throw new JsonScanError('Unexpected data after the JSON value', rest);
  return items;
}
