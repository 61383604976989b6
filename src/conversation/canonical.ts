import { createHash, hash } from 'node:crypto';
import { isLowSurrogate } from '../compaction/text.js';
import { stringifyJson, stringifyJsonSliced } from '../body/stringify.js';
import { objectNote } from '../body/object-notes.js';
import type { ChatMessage } from '../messages/types.js';
import type { Pause } from '../slicing/slicer.js';

// The canonical form of a message, as a hash: only the fields that carry meaning for the model,
// with `null`, absent and empty treated alike and keys sorted. SDKs echo assistant messages back with
// extras (`refusal: null`, `annotations: []`, `audio: null`) and in any key order; none of that may
// change a message's identity, its token-count cache entry or the records that cover it.

/** Null, absent and empty arrays: what the canonical form treats as no value. */
export function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0);
}

/**
 * The canonical JSON of a value: keys sorted, null and absent members dropped, so equal meaning
 * gives equal text. Written without recursion (body/stringify.ts): a client may nest a content
 * part or tool-call arguments thousands of levels deep.
 */
const CANONICAL = { sortKeys: true, dropNulls: true };

function canonicalJson(v: unknown): string {
  return stringifyJson(v, CANONICAL);
}

function canonicalToolCall(tc: unknown): unknown {
  const t = (tc ?? {}) as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
  return { id: t.id, type: t.type ?? 'function', function: { name: t.function?.name, arguments: t.function?.arguments } };
}

function sha256(text: string): string {
  return hash('sha256', text, 'base64url');
}

/** The structured fields of a message (content parts, tool calls, function_call), absent ones as undefined. */
function structured(m: ChatMessage, toolCalls = isEmpty(m.tool_calls) ? undefined : (m.tool_calls as unknown[]).map(canonicalToolCall)): [unknown, unknown, unknown] {
  const c = m.content;
  return [isEmpty(c) || typeof c === 'string' ? undefined : c, toolCalls, isEmpty(m.function_call) ? undefined : m.function_call];
}

/**
 * The text hashed for a message, given the canonical JSON of its structured fields: every field
 * prefixed with its length, so that no two different field lists join to the same text. Built by
 * concatenation, as every message of every request is hashed (canonicalPieces is the same text in
 * pieces, for big messages).
 */
function canonicalText(m: ChatMessage, [content, calls, legacyCall]: (string | undefined)[]): string {
  const c = m.content;
  const text = content !== undefined ? `j${content}` : typeof c === 'string' && c !== '' ? `s${c}` : '';
  return field(m.role) + field(scalarText(m.name)) + field(text) + field(calls ?? '') + field(scalarText(m.tool_call_id)) + field(legacyCall ?? '');
}

/**
 * A field that should be a string (`name`, `tool_call_id`) as hashed text: a string as it is, any
 * other value as its canonical JSON. String() would throw on `{"toString":1}` (a value JSON can
 * carry) and give every object the same "[object Object]".
 */
function scalarText(v: unknown): string {
  if (isEmpty(v)) return '';
  return typeof v === 'string' ? v : canonicalJson(v);
}

function field(value: string): string {
  return `${value.length}:${value}`;
}

/** canonicalText in pieces, each structured field's JSON given in pieces. */
function canonicalPieces(m: ChatMessage, [content, calls, legacyCall]: (string[] | undefined)[]): string[] {
  const c = m.content;
  const text = content !== undefined ? ['j', ...content] : typeof c === 'string' ? (c === '' ? [] : ['s', c]) : [];
  return [m.role, scalarText(m.name), text, calls ?? [], scalarText(m.tool_call_id), legacyCall ?? []].flatMap(fieldPieces);
}

/** field() in pieces. */
function fieldPieces(value: string | string[]): string[] {
  const parts = typeof value === 'string' ? [value] : value;
  return [`${parts.reduce((n, p) => n + p.length, 0)}:`, ...parts];
}

// Hashes worked out already, by message object: recap never changes a message it parsed (the
// engine makes new objects for what it changes), and one object comes back with every request that
// sends its bytes (body/seen-items.ts), so a message is hashed once, not once per request. A big
// structured one is hashed ahead of the request path, in slices (primeMessageHash). Dropped with
// the message.
const known = objectNote<ChatMessage, string>();

/**
 * Identity of one message; the key of the token-count cache and the link of the records' chain.
 * It covers the fields that carry meaning (role, name, content, tool calls, tool_call_id, legacy
 * function_call); string content is hashed as it is rather than JSON-escaped first, because every
 * request hashes every message.
 */
export function messageHash(m: ChatMessage): string {
  let h = known.get(m);
  if (h === undefined) {
    h = sha256(
      canonicalText(
        m,
        structured(m).map((v) => (v === undefined ? undefined : canonicalJson(v))),
      ),
    );
    known.set(m, h);
  }
  return h;
}

/** Works out messageHash(m) with pauses, for later calls to find (200k tool calls: 0.6 s in one go). */
export async function primeMessageHash(m: ChatMessage, pause: Pause): Promise<void> {
  if (known.get(m) !== undefined) return;
  let toolCalls: unknown[] | undefined;
  if (!isEmpty(m.tool_calls)) {
    toolCalls = [];
    for (const tc of m.tool_calls as unknown[]) {
      toolCalls.push(canonicalToolCall(tc));
      const due = pause();
      if (due) await due;
    }
  }
  const json: (string[] | undefined)[] = [];
  for (const v of structured(m, toolCalls)) json.push(v === undefined ? undefined : await stringifyJsonSliced(v, CANONICAL, pause));
  // Fed to the hash piece by piece: the same digest as of the joined text, without a 15 MB string.
  const digest = createHash('sha256');
  for (const piece of canonicalPieces(m, json)) {
    for (const chunk of hashChunks(piece)) {
      digest.update(chunk);
      const due = pause();
      if (due) await due;
    }
  }
  known.set(m, digest.digest('base64url'));
}

// About a millisecond of hashing each.
const HASH_CHUNK_CHARS = 512 * 1024;

/** A piece in chunks for the hash, never cut inside a surrogate pair (half of one encodes as U+FFFD). */
function* hashChunks(piece: string): Generator<string> {
  for (let at = 0; at < piece.length; ) {
    let end = Math.min(piece.length, at + HASH_CHUNK_CHARS);
    if (end < piece.length && isLowSurrogate(piece.charCodeAt(end))) end--;
    yield at === 0 && end === piece.length ? piece : piece.slice(at, end);
    at = end;
  }
}

// The link after an item, per item object with the link before it: a resent history comes back as
// the same objects (body/seen-items.ts), and chains without hashing again.
const linkAfter = objectNote<object, { prev: string; link: string }>();

/**
 * chain[i] identifies messages[0..i] in order: chain[i] = H(chain[i-1] + hash(messages[i])).
 * `items`, when given, are the objects whose hashes these are: a link worked out before after the
 * same link is taken again.
 */
export function hashChain(messageHashes: readonly string[], seed = '', items?: readonly object[]): string[] {
  const chain: string[] = [];
  let prev = seed;
  for (const [i, h] of messageHashes.entries()) {
    const item = items?.[i];
    const known = item && linkAfter.get(item);
    if (known && known.prev === prev) prev = known.link;
    else {
      const link = sha256(`${prev}.${h}`);
      if (item) linkAfter.set(item, { prev, link });
      prev = link;
    }
    chain.push(prev);
  }
  return chain;
}

// As `known`, for items given as free-form JSON.
const knownItems = objectNote<object, string>();

/**
 * Identity of an item given as free-form JSON (a Responses API input item): its canonical form,
 * whatever the key order and null-vs-absent; `status` (echoed by some clients, dropped by others)
 * does not change what an item says and is left out.
 */
export function jsonItemHash(item: Record<string, unknown>): string {
  let h = knownItems.get(item);
  if (h === undefined) {
    const { status: _status, ...rest } = item;
    h = sha256(`j${canonicalJson(rest)}`);
    knownItems.set(item, h);
  }
  return h;
}
