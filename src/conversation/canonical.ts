import { hash } from 'node:crypto';
import type { ChatMessage } from '../chat/types.js';
import { stringifyJson } from '../json/stringify.js';

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
 * gives equal text. Written without recursion (json/stringify.ts): a client may nest a content
 * part or tool-call arguments thousands of levels deep.
 */
function canonicalJson(v: unknown): string {
  return stringifyJson(v, { sortKeys: true, dropNulls: true });
}

function canonicalToolCall(tc: unknown): unknown {
  const t = (tc ?? {}) as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
  return { id: t.id, type: t.type ?? 'function', function: { name: t.function?.name, arguments: t.function?.arguments } };
}

function sha256(text: string): string {
  return hash('sha256', text, 'base64url');
}

/** A field prefixed with its length, so that no two different field lists join to the same text. */
function field(value: string): string {
  return `${value.length}:${value}`;
}

/**
 * Identity of one message; the key of the token-count cache and the link of the records' chain.
 * It covers the fields that carry meaning (role, name, content, tool calls, tool_call_id, legacy
 * function_call); string content is hashed as it is rather than JSON-escaped first, because every
 * request hashes every message.
 */
export function messageHash(m: ChatMessage): string {
  const c = m.content;
  const content = isEmpty(c) || c === '' ? '' : typeof c === 'string' ? `s${c}` : `j${canonicalJson(c)}`;
  const calls = isEmpty(m.tool_calls) ? '' : canonicalJson((m.tool_calls as unknown[]).map(canonicalToolCall));
  const legacyCall = isEmpty(m.function_call) ? '' : canonicalJson(m.function_call);
  const name = isEmpty(m.name) ? '' : String(m.name);
  const callId = isEmpty(m.tool_call_id) ? '' : String(m.tool_call_id);
  return sha256(field(String(m.role)) + field(name) + field(content) + field(calls) + field(callId) + field(legacyCall));
}

/** chain[i] identifies messages[0..i] in order: chain[i] = H(chain[i-1] + hash(messages[i])). */
export function hashChain(messageHashes: readonly string[], seed = ''): string[] {
  const chain: string[] = [];
  let prev = seed;
  for (const h of messageHashes) {
    prev = sha256(`${prev}.${h}`);
    chain.push(prev);
  }
  return chain;
}
