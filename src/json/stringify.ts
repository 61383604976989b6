// JSON.stringify recurses on the call stack and throws a RangeError on a value nested a few
// thousand levels deep, which a client can send (JSON.parse takes any depth). This writes the same
// text as JSON.stringify for the values JSON.parse produces (objects, arrays, strings, numbers,
// booleans, null), with an explicit stack. Strings are quoted by JSON.stringify itself.

type Frame =
  | { kind: 'array'; items: readonly unknown[]; next: number }
  | { kind: 'object'; obj: Record<string, unknown>; keys: string[]; next: number; wrote: boolean };

/** What a scalar (or an object or array, as an opening bracket) writes; undefined to skip it. */
function scalar(v: unknown): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return undefined;
  }
}

// Integer-like keys ("0", "42") always come first in a JS object's key order, in numeric order;
// an object built by inserting keys in sorted order lists them so too.
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
const MAX_ARRAY_INDEX = 2 ** 32 - 2;

function isArrayIndex(key: string): boolean {
  return ARRAY_INDEX.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

/** `keys` (as Object.keys lists them) in the order of an object built with its keys sorted. */
function sortedOrder(keys: string[]): string[] {
  let indices = 0;
  while (indices < keys.length && isArrayIndex(keys[indices]!)) indices++;
  if (indices === 0) return keys.sort();
  return [...keys.slice(0, indices), ...keys.slice(indices).sort()];
}

/**
 * JSON.stringify(value) without recursion. `sortKeys` writes each object's keys as
 * JSON.stringify would write the object rebuilt with its keys inserted in sorted order (integer
 * keys first); `dropNulls` leaves out members whose value is null.
 */
export function stringifyJson(value: unknown, options: { sortKeys?: boolean; dropNulls?: boolean } = {}): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (v: unknown): boolean => {
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ kind: 'array', items: v, next: 0 });
      return true;
    }
    if (v !== null && typeof v === 'object') {
      out.push('{');
      const keys = Object.keys(v);
      stack.push({ kind: 'object', obj: v as Record<string, unknown>, keys: options.sortKeys ? sortedOrder(keys) : keys, next: 0, wrote: false });
      return true;
    }
    return false;
  };
  // A top-level value JSON.stringify cannot write (undefined, a function) gives ''.
  if (!open(value)) return scalar(value) ?? '';
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.kind === 'array') {
      if (frame.next === frame.items.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      const v = frame.items[frame.next];
      if (frame.next++ > 0) out.push(',');
      if (!open(v)) out.push(scalar(v) ?? 'null');
      continue;
    }
    if (frame.next === frame.keys.length) {
      out.push('}');
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.next++]!;
    const v = frame.obj[key];
    const isObject = v !== null && typeof v === 'object';
    const text = isObject ? undefined : scalar(v);
    if (!isObject && (text === undefined || (options.dropNulls && v === null))) continue;
    out.push(`${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`);
    frame.wrote = true;
    if (!open(v)) out.push(text!);
  }
  return out.join('');
}
