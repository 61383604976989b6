// The usage of a reply recap answered recall calls inside: the sum over its hops, field by field
// (prompt_tokens, completion_tokens, total_tokens and the nested details alike, in either API's
// names), so the client is billed-as-seen for every upstream call its reply cost.

type Usage = Record<string, unknown>;

function isObject(v: unknown): v is Usage {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `a` + `b`: numbers summed, objects summed member by member, anything else taken from `b` (the newest hop). */
export function sumUsage(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (!isObject(a) || !isObject(b)) return b ?? a;
  const out: Usage = { ...a };
  for (const [key, value] of Object.entries(b)) out[key] = key in a ? sumUsage(a[key], value) : value;
  return out;
}
