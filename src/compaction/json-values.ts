// Tool-call arguments (and many tools' outputs) are JSON text. Read as raw text, their escapes leak
// into what looks like identifiers: `"…\nos.makedirs(d)"` reads as `nos.makedirs`, `\"/returncode`
// as `/returncode`. The ledger reads the values such a text holds instead (docs/design.md rule 5).

const ESCAPE = /\\(?:u[0-9a-fA-F]{4}|["\\/bfnrt])/g;

/**
 * The string values (and safe integers) of a JSON text, one per line, in document order; a text
 * that is not whole JSON (malformed, or cut at its head and tail) with its escapes decoded; any
 * other text as it is.
 */
export function jsonValuesText(text: string): string {
  const t = text.trimStart();
  if (t[0] !== '{' && t[0] !== '[' && t[0] !== '"') return text;
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    return text.replace(ESCAPE, (e) => JSON.parse(`"${e}"`) as string);
  }
  return valuesOf(value).join('\n');
}

/** Walked with a stack, not recursion: arguments may nest thousands of levels deep. */
function valuesOf(root: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') out.push(v);
    // A bigger integer has already lost digits in JSON.parse: it would name something that never appeared.
    else if (typeof v === 'number' && Number.isSafeInteger(v)) out.push(String(v));
    else if (v !== null && typeof v === 'object') {
      const children = Array.isArray(v) ? v : Object.values(v);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return out;
}
