import type { JsonBody } from './body.js';
import { type Span, arrayElements } from './scan.js';
import { stringifyJson } from './stringify.js';

// DESIGN rule 12: when recap rewrites a request, only the array it compacts (`messages`, `input`)
// changes. The new array goes into the client's bytes in place of the old one; every other byte
// (numbers such as `seed` 9007199254740993 or 1e400 that a JSON round trip would change, key order,
// spacing, escapes) reaches the upstream as the client wrote it. Inside the array, each item the
// client sent keeps its own bytes too: only the objects recap made (the summary, a cleared tool
// result) are serialized. The engine hands back the client's item objects themselves, so identity
// tells them apart.

/** The bytes to forward: the client's body with its `key` array (parsed as `original`) replaced by `view`. */
export function spliceArray<T extends object>(body: JsonBody, key: string, original: readonly T[], view: readonly T[]): Buffer {
  const { raw } = body;
  const member = body.members?.find((m) => m.key === key);
  if (!member) throw new TypeError(`the body has no \`${key}\` to splice`);
  const spans: readonly Span[] = member.elements ?? arrayElements(raw, member.value.start).items;
  const indexOf = new Map<T, number>();
  original.forEach((item, i) => indexOf.set(item, i));
  const parts: Buffer[] = [raw.subarray(0, member.value.start), Buffer.from('[')];
  view.forEach((item, i) => {
    if (i > 0) parts.push(Buffer.from(','));
    const own = indexOf.get(item);
    parts.push(own === undefined ? Buffer.from(stringifyJson(item)) : raw.subarray(spans[own]!.start, spans[own]!.end));
  });
  parts.push(Buffer.from(']'), raw.subarray(member.value.end));
  return Buffer.concat(parts);
}
