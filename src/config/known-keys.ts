import type { z } from 'zod';

// "Did you mean": the keys the schema knows at a path of the config, and the nearest of them to a
// key it does not know.

type Node = z.core.$ZodType;

/** Unwraps defaults, optionals and pipes down to the schema that holds the value's shape. */
function inner(schema: Node): Node {
  const def = schema._zod.def as { type: string; innerType?: Node; in?: Node };
  if ((def.type === 'default' || def.type === 'optional' || def.type === 'nullable' || def.type === 'prefault') && def.innerType) return inner(def.innerType);
  if (def.type === 'pipe' && def.in) return inner(def.in);
  return schema;
}

/** The keys an object at `path` (of `schema`) may have; empty where the path leads to no object. */
export function knownKeysAt(schema: Node, path: readonly PropertyKey[]): string[] {
  let node = inner(schema);
  for (const key of path) {
    const def = node._zod.def as { type: string; shape?: Record<string, Node>; element?: Node; valueType?: Node };
    if (def.type === 'object' && def.shape && typeof key === 'string' && Object.hasOwn(def.shape, key)) node = inner(def.shape[key]!);
    else if (def.type === 'array' && def.element) node = inner(def.element);
    else if (def.type === 'record' && def.valueType) node = inner(def.valueType);
    else return [];
  }
  const def = node._zod.def as { type: string; shape?: Record<string, Node> };
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

/** Edits from one key to the other: insertions, deletions, substitutions and swaps of neighbours (`prot` → `port` is one). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known key closest to `key`, if one is close enough to be a typo of it (or differs only in case or `-`/`_`). */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const plain = (k: string) => k.toLowerCase().replace(/-/g, '_');
  const same = known.find((k) => plain(k) === plain(key));
  if (same) return same;
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(plain(key), plain(k));
    if (!best || d < best.d) best = { key: k, d };
  }
  // A third of the key's length, at least one edit: `prot` → port, `anonymus` → anonymous.
  return best && best.d <= Math.max(1, Math.floor(key.length / 3)) ? best.key : undefined;
}
