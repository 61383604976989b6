import { isAscii } from 'node:buffer';
import { errors } from '../errors.js';
import type { Pause } from '../slicing/slicer.js';
import { type KnownItems, parseSliced, type WalkedMember } from './parse-sliced.js';
import type { RunNotes } from './run-notes.js';
import { documentMembers, type Member } from './scan.js';

// A JSON request body as the compacting routes read it: parsed in slices, so that the event loop
// keeps moving, with its top-level members' byte spans, so that a rewritten request replaces only
// the bytes of the array recap rewrites (splice.ts) and a key given twice is caught, and with the
// spans of that array's items, the ones seen before taken as parsed then (parse-sliced.ts).

export interface JsonBody {
  value: unknown;
  raw: Buffer;
  /** The top-level members with their spans, when the body is an object. */
  members: WalkedMember[] | null;
  /** The leading items taken over from an earlier request, and what was noted about them (run-notes.ts). */
  run?: RunNotes | undefined;
}

function parseWhole(raw: Buffer): unknown {
  try {
    // Most bodies are ASCII (JSON escapes the rest): read as one-byte text, which parses faster.
    return JSON.parse(isAscii(raw) ? raw.toString('latin1') : raw.toString('utf8'));
  } catch (err) {
    throw errors.invalidJson((err as Error).message);
  }
}

/**
 * A key whose value changes what recap does (routing, the items it counts and compacts, the
 * budget), given twice: recap would act on one (JSON.parse keeps the last) while an upstream that
 * keeps the first would read another. Refused instead, in any letter case too (`"Model"`): Go's
 * encoding/json, which Ollama and other servers use, matches keys case-insensitively. Other keys
 * recap forwards as written without reading them, so a duplicate there is the upstream's to judge.
 */
export function refuseDuplicates(members: readonly Member[], keysRecapReads: ReadonlySet<string>): void {
  const seen = new Set<string>();
  for (const { key } of members) {
    const name = key.toLowerCase();
    if (!keysRecapReads.has(name)) continue;
    if (seen.has(name)) throw errors.invalidRequest(`\`${name}\` is given more than once in the request body.`, name);
    seen.add(name);
  }
}

/** The request path's parse, in slices (`pause` between them); `items`, the array of conversation items and those seen before. */
export async function readJsonBody(raw: Buffer, pause: Pause, items?: KnownItems): Promise<JsonBody> {
  try {
    return { ...(await parseSliced(raw, pause, items && { items })), raw };
  } catch (err) {
    if (err instanceof SyntaxError) throw errors.invalidJson(err.message);
    throw err;
  }
}

/** The same in one go: a small body, or one the CLI read from a file. */
export function parseJsonBody(raw: Buffer): JsonBody {
  const value = parseWhole(raw);
  // JSON.parse accepted the bytes, so the scan of their top level cannot fail.
  return { value, raw, members: value !== null && typeof value === 'object' && !Array.isArray(value) ? documentMembers(raw) : null };
}

/** What every compacting route requires of a body: a JSON object that names its `model`. */
export function objectNamingModel(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.invalidRequest('The request body must be a JSON object.');
  }
  const req = value as Record<string, unknown>;
  if (typeof req.model !== 'string' || req.model === '') {
    throw errors.invalidRequest('`model` must be a non-empty string.', 'model');
  }
  return req;
}
