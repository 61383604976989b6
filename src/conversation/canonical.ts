import { hash } from 'node:crypto';
import type { ChatMessage } from '../chat/types.js';

// The canonical form of a message, as a hash: only the fields that carry meaning for the model,
// with `null`, absent and empty treated alike and keys sorted. SDKs echo assistant messages back with
// extras (`refusal: null`, `annotations: []`, `audio: null`) and in any key order; none of that may
// change a message's identity, its token-count cache entry or the records that cover it.

/** Null, absent and empty arrays: what the canonical form treats as no value. */
export function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0);
}

/** Recursively sorts keys and drops null/absent fields, so equal meaning gives equal JSON. */
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && x !== undefined) out[k] = normalize(x);
    }
    return out;
  }
  return v;
}

function canonicalToolCall(tc: unknown): unknown {
  const t = (tc ?? {}) as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
  return normalize({
    id: t.id,
    type: t.type ?? 'function',
    function: { name: t.function?.name, arguments: t.function?.arguments },
  });
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
  const content = isEmpty(c) || c === '' ? '' : typeof c === 'string' ? `s${c}` : `j${JSON.stringify(normalize(c))}`;
  const calls = isEmpty(m.tool_calls) ? '' : JSON.stringify((m.tool_calls as unknown[]).map(canonicalToolCall));
  const legacyCall = isEmpty(m.function_call) ? '' : JSON.stringify(normalize(m.function_call));
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

/**
 * Identity of an item given as free-form JSON (a Responses API input item): its canonical form,
 * whatever the key order and null-vs-absent; `status` (echoed by some clients, dropped by others)
 * does not change what an item says and is left out.
 */
export function jsonItemHash(item: Record<string, unknown>): string {
  const { status: _status, ...rest } = item;
  return sha256(`j${JSON.stringify(normalize(rest))}`);
}
