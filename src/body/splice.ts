import type { JsonBody } from './json-body.js';
import { objectNote } from './object-notes.js';
import type { WalkedMember } from './parse-sliced.js';
import { arrayElements, OPEN_ARRAY, objectMembers, type Span, skipWhitespace } from './scan.js';
import { stringifyJson } from './stringify.js';

// docs/design.md rule 12: when recap rewrites a request, only the array it compacts (`messages`, `input`)
// changes. The new array goes into the client's bytes in place of the old one; every other byte
// (numbers such as `seed` 9007199254740993 or 1e400 that a JSON round trip would change, key order,
// spacing, escapes) reaches the upstream as the client wrote it. Inside the array, each item the
// client sent keeps its own bytes too: only the objects recap made (the summary) are serialized,
// and an item recap changed one member of (a cleared tool result's `content` or `output`) is the
// client's bytes with that member's value replaced. The engine hands back the client's item
// objects themselves, so identity tells them apart.

/** A client item with some members' values replaced: what withMember() made. */
interface Replaced {
  from: object;
  values: Map<string, unknown>;
}

const replacements = objectNote<object, Replaced>();
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');
const COMMA_BYTE = COMMA[0];
// The bytes written for a replaced item, per item object. The client item it was made from is one
// byte sequence whatever request it comes in (an item seen before comes back as the same object for
// the same bytes only, body/seen-items.ts), and the engine makes the same replaced item again for
// the same values (a cleared stub, once per result): it is not scanned and serialized anew per request.
const replacedBytes = objectNote<object, Buffer>();
// The bytes of an item recap made (a summary), per object: a view taken over from the previous
// request (pipeline/decision-memo.ts) has the same summary object, not serialized anew.
const madeBytes = objectNote<object, Buffer>();
function madeBytesOf(item: object): Buffer {
  const bytes = Buffer.from(stringifyJson(item));
  madeBytes.set(item, bytes);
  return bytes;
}
// Items of a view not found after the previous one's place, looked for along the array before it is mapped.
const MISSES_BEFORE_MAP = 4;

/**
 * `item` with its member `key` set to `value`: an item spliceArray writes as the client's bytes of
 * `item` with only that member's value replaced (every other field, numbers included, as sent).
 */
export function withMember<T extends object>(item: T, key: string, value: unknown): T {
  const base = replacements.get(item);
  const copy = { ...item, [key]: value };
  replacements.set(copy, { from: base?.from ?? item, values: new Map([...(base?.values ?? []), [key, value]]) });
  return copy;
}

/** The bytes of the object at `span` with the values of `values`' members replaced (all of a key given twice). */
function replaceMembers(raw: Buffer, span: Span, values: ReadonlyMap<string, unknown>): Buffer {
  const members = objectMembers(raw, span.start).items;
  // A member the client did not send goes first, before the client's own.
  const added = [...values].filter(([key]) => !members.some((m) => m.key === key)).map(([key, value]) => `${JSON.stringify(key)}:${stringifyJson(value)}`);
  const parts: Buffer[] = [Buffer.from(`{${added.join(',')}${added.length > 0 && members.length > 0 ? ',' : ''}`)];
  let at = span.start + 1;
  for (const m of members) {
    if (!values.has(m.key)) continue;
    parts.push(raw.subarray(at, m.value.start), Buffer.from(stringifyJson(values.get(m.key))));
    at = m.value.end;
  }
  parts.push(raw.subarray(at, span.end));
  return Buffer.concat(parts);
}

/** An element (already JSON text) to append to the body's top-level array member `key`. */
export interface Appended {
  key: string;
  elementJson: string;
}

/** Bytes that take the place of raw[start, end) (an insertion when they are equal). */
interface Edit {
  start: number;
  end: number;
  parts: Buffer[];
}

/**
 * `append`'s element after the client's own elements of its member, each as written; a member that
 * is absent or not an array (null) becomes an array of that element alone. Placed from the spans the
 * parse found, so the body is not scanned again.
 */
function appendEdit(raw: Buffer, members: readonly WalkedMember[], append: Appended): Edit {
  const element = Buffer.from(append.elementJson);
  const member = members.find((m) => m.key === append.key);
  if (!member) {
    // Right before the document's closing brace, after the last member.
    const close = skipWhitespace(raw, members.at(-1)!.value.end);
    return { start: close, end: close, parts: [Buffer.from(`,${JSON.stringify(append.key)}:[`), element, Buffer.from(']')] };
  }
  const { start, end } = member.value;
  if (raw[start] !== OPEN_ARRAY) return { start, end, parts: [Buffer.from('['), element, Buffer.from(']')] };
  const close = end - 1;
  const empty = skipWhitespace(raw, start + 1) === close;
  return { start: close, end: close, parts: empty ? [element] : [Buffer.from(','), element] };
}

function applyEdits(raw: Buffer, edits: Edit[]): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    parts.push(raw.subarray(at, edit.start), ...edit.parts);
    at = edit.end;
  }
  parts.push(raw.subarray(at));
  return Buffer.concat(parts);
}

/**
 * The bytes to forward: the client's body with its `key` array (parsed as `original`) replaced by
 * `view`, and `append`'s element added to another array member (recap_recall to `tools`).
 */
export function spliceArray<T extends object>(body: JsonBody, key: string, original: readonly T[], view: readonly T[], append?: Appended): Buffer {
  const { raw } = body;
  const members = body.members ?? [];
  const member = members.find((m) => m.key === key);
  if (!member) throw new TypeError(`the body has no \`${key}\` to splice`);
  const spans: readonly Span[] = member.elements ?? arrayElements(raw, member.value.start).items;
  // Where a view item sits in the body. A view keeps the client's order, so it is most often the
  // item after the previous one's place; the few it made (the summary, a recall turn) are looked for
  // along the array, and a view with more of those maps the whole array once. (One object at two
  // places has the same bytes at both: seen-items.ts gives it for those bytes only.)
  let indexOf: Map<object, number> | undefined;
  let next = 0;
  let misses = 0;
  const placeOf = (item: object): number | undefined => {
    if (original[next] === item) return next;
    if (!indexOf && ++misses <= MISSES_BEFORE_MAP) {
      // Ahead first: the view keeps the client's order.
      const ahead = original.indexOf(item as T, next);
      const at = ahead === -1 ? original.indexOf(item as T) : ahead;
      return at === -1 ? undefined : at;
    }
    if (!indexOf) {
      indexOf = new Map();
      original.forEach((o, i) => indexOf!.set(o, i));
    }
    return indexOf.get(item);
  };
  const parts: Buffer[] = [OPEN];
  // Client items that follow each other in the view as in the body, with a bare comma between them
  // there, go as one run of its bytes: a view that keeps most of a history is a few copies. The
  // array is recap's to write, so a client's other separators (spaces, newlines) are not carried.
  let run: { start: number; end: number; last: number } | undefined;
  const endRun = () => {
    if (run) parts.push(raw.subarray(run.start, run.end));
    run = undefined;
  };
  for (let i = 0; i < view.length; i++) {
    const item = view[i]!;
    // The common case first: the client's next item, right after the run with a bare comma between.
    if (run && original[run.last + 1] === item) {
      const span = spans[run.last + 1]!;
      if (span.start === run.end + 1 && raw[run.end] === COMMA_BYTE) {
        run.end = span.end;
        run.last++;
        next = run.last + 1;
        continue;
      }
    }
    // The client's next item (after a stub, say) is taken without asking what recap made or changed.
    // What recap made (a summary) or changed (a cleared stub) is never one of the client's
    // objects: it is not looked for among them, which would take a pass over the array.
    const isNext = original[next] === item;
    const replaced = isNext ? undefined : replacements.get(item);
    const made = isNext || replaced ? undefined : madeBytes.get(item);
    const own = isNext ? next : made || replaced ? undefined : placeOf(item);
    if (own !== undefined) next = own + 1;
    if (own !== undefined && run && own === run.last + 1 && spans[own]!.start === run.end + 1 && raw[run.end] === COMMA_BYTE) {
      run.end = spans[own]!.end;
      run.last = own;
      continue;
    }
    endRun();
    if (i > 0) parts.push(COMMA);
    if (own !== undefined) {
      run = { start: spans[own]!.start, end: spans[own]!.end, last: own };
      continue;
    }
    const from = replaced && placeOf(replaced.from);
    if (from !== undefined) next = from + 1;
    if (from === undefined) {
      parts.push(made ?? madeBytesOf(item));
      continue;
    }
    let bytes = replacedBytes.get(item);
    if (!bytes) {
      bytes = replaceMembers(raw, spans[from]!, replaced!.values);
      replacedBytes.set(item, bytes);
    }
    parts.push(bytes);
  }
  endRun();
  parts.push(CLOSE);
  const edits: Edit[] = [{ start: member.value.start, end: member.value.end, parts }];
  if (append) edits.push(appendEdit(raw, members, append));
  return applyEdits(raw, edits);
}

/** A whole-document object's bytes with the values of `values`' members replaced (members it lacks added first). */
export function replaceDocumentMembers(raw: Buffer, values: ReadonlyMap<string, unknown>): Buffer {
  const open = skipWhitespace(raw, 0);
  const end = objectMembers(raw, open).end;
  return Buffer.concat([raw.subarray(0, open), replaceMembers(raw, { start: open, end }, values), raw.subarray(end)]);
}
