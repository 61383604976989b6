import { isAscii } from 'node:buffer';
import { primeMessageHash } from '../conversation/canonical.js';
import { errors } from '../errors.js';
import { type WalkedMember, parseSliced } from '../json/parse-sliced.js';
import { type Member, documentMembers } from '../json/scan.js';
import type { Pause } from '../slicer.js';
import { messageShapeProblem } from './message-shape.js';
import type { ChatMessage, ChatRequest } from './types.js';

// Parses and checks the few fields recap relies on; everything else is the upstream's business
// and is forwarded as the client sent it. The top-level members' byte spans come along, so that a
// rewritten request replaces only the bytes of `messages` (splice.ts).

/** A parsed chat body and where its top-level members sit in the client's bytes. */
export interface ChatBody {
  body: ChatRequest;
  raw: Buffer;
  /** `messages` as written: its value's span and, when the parse walked it, its elements' spans. */
  messages: WalkedMember;
}

// Bodies from this size are parsed in slices (parse-sliced.ts): JSON.parse of 1 MiB of dense
// JSON takes about 10 ms, of 15 MiB up to 250 ms in one go.
const SLICED_PARSE_BYTES = 1024 * 1024;

// The top-level keys whose value changes what recap does (routing, the messages it counts and
// compacts, the budget). Given twice, recap would act on one (JSON.parse keeps the last) while an
// upstream that keeps the first would read another: refused instead. Other keys recap forwards as
// written without reading them, so a duplicate there is the upstream's to judge.
const KEYS_RECAP_READS = new Set(['model', 'messages', 'max_tokens', 'max_completion_tokens', 'tools', 'functions', 'response_format']);

function parseWhole(raw: Buffer): unknown {
  try {
    // Most bodies are ASCII (JSON escapes the rest): read as one-byte text, which parses faster.
    return JSON.parse(isAscii(raw) ? raw.toString('latin1') : raw.toString('utf8'));
  } catch (err) {
    throw errors.invalidJson((err as Error).message);
  }
}

function refuseDuplicates(members: readonly Member[]): void {
  const seen = new Set<string>();
  for (const { key } of members) {
    if (!KEYS_RECAP_READS.has(key)) continue;
    if (seen.has(key)) throw errors.invalidRequest(`\`${key}\` is given more than once in the request body.`, key);
    seen.add(key);
  }
}

function checkRequest(body: unknown): ChatRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.invalidRequest('The request body must be a JSON object.');
  }
  const req = body as Record<string, unknown>;
  if (typeof req.model !== 'string' || req.model === '') {
    throw errors.invalidRequest('`model` must be a non-empty string.', 'model');
  }
  if (!Array.isArray(req.messages)) {
    throw errors.invalidRequest('`messages` must be an array of messages.', 'messages');
  }
  req.messages.forEach((m, i) => {
    if (m === null || typeof m !== 'object' || Array.isArray(m) || typeof (m as { role?: unknown }).role !== 'string') {
      throw errors.invalidRequest(`messages[${i}] must be an object with a string \`role\`.`, `messages[${i}]`);
    }
    const problem = messageShapeProblem(m as Record<string, unknown>);
    if (problem) throw errors.invalidRequest(`messages[${i}].${problem.field} ${problem.message}.`, `messages[${i}].${problem.field}`);
  });
  return req as ChatRequest;
}

async function parseDocument(raw: Buffer, pause: Pause): Promise<{ value: unknown; members: WalkedMember[] | null }> {
  if (raw.length < SLICED_PARSE_BYTES) {
    const value = parseWhole(raw);
    // JSON.parse accepted the bytes, so the scan of their top level cannot fail.
    return { value, members: value !== null && typeof value === 'object' && !Array.isArray(value) ? documentMembers(raw) : null };
  }
  try {
    return await parseSliced(raw, pause);
  } catch (err) {
    if (err instanceof SyntaxError) throw errors.invalidJson(err.message);
    throw err;
  }
}

// A structured message (content parts, tool calls) this big gets its canonical hash worked out
// here, in slices: the request path hashes messages synchronously (identifying, counting), and
// hashing 200k tool calls or a 300k-key part in one go held the event loop for 0.5-1 s.
const PRIMED_MESSAGE_BYTES = 64 * 1024;

function isStructured(m: ChatMessage): boolean {
  return Array.isArray(m.content) || Array.isArray(m.tool_calls) || (m.function_call !== null && typeof m.function_call === 'object');
}

/** The request path's parse: big bodies in slices (`pause` between them), small ones in one go. */
export async function readChatRequest(raw: Buffer, pause: Pause): Promise<ChatBody> {
  const { value, members } = await parseDocument(raw, pause);
  if (members) refuseDuplicates(members);
  const body = checkRequest(value);
  // checkRequest found exactly one `messages`, an array.
  const messages = members!.find((m) => m.key === 'messages')!;
  // Only a walked array has element spans; a smaller one holds no message worth it.
  for (const [i, span] of (messages.elements ?? []).entries()) {
    const m = body.messages[i]!;
    if (span.end - span.start > PRIMED_MESSAGE_BYTES && isStructured(m)) await primeMessageHash(m, pause);
  }
  return { body, raw, messages };
}

/** The same checks in one go, for the CLI (`recap count`). */
export function parseChatRequest(raw: Buffer): ChatRequest {
  const value = parseWhole(raw);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) refuseDuplicates(documentMembers(raw));
  return checkRequest(value);
}
