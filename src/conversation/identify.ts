import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ChatMessage } from '../chat/types.js';
import { errors } from '../errors.js';
import { messageHash } from './canonical.js';

export const MAX_CONVERSATION_ID_BYTES = 512;

export interface Identity {
  /** Keyed hash of the caller's credential: records of one tenant are invisible to every other. */
  tenant: string;
  /** Keyed hash of the conversation id (header) or of the conversation's opening messages. */
  conversation: string;
  /** Whether the id came from the header (true) or was derived from the messages (false). */
  explicit: boolean;
  /** When derived: the canonical hashes of the messages it was derived from, the leading ones. */
  leadingHashes?: readonly string[];
}

function keyedHash(secret: string, ...parts: string[]): string {
  const h = createHmac('sha256', secret);
  for (const p of parts) h.update(p).update('\0');
  return h.digest('base64url');
}

/** The credential a client authenticates with; each of OpenAI's and Azure's header styles counts. */
export function credentialOf(headers: IncomingHttpHeaders): string {
  const value = headers.authorization ?? headers['api-key'] ?? headers['x-api-key'];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

// Worked out on every request rather than cached: a cache would have to be keyed by the raw
// credentials and keep them in memory long after their requests (one HMAC costs a few µs).
export function tenantOf(headers: IncomingHttpHeaders, secret: string): string {
  return keyedHash(secret, 'tenant', credentialOf(headers));
}

export function conversationIdHash(tenant: string, id: string, secret: string): string {
  return keyedHash(secret, 'conversation', tenant, id);
}

/**
 * Without the header, the pinned messages plus the first user message name the conversation:
 * they stay the same while the history grows, and differ between unrelated conversations. Their
 * canonical hashes stand for them.
 */
function leadingHashes(messages: readonly ChatMessage[]): string[] {
  const opening: string[] = [];
  for (const m of messages) {
    opening.push(messageHash(m));
    if (m.role === 'user') break;
  }
  return opening;
}

export function identify(
  headers: IncomingHttpHeaders,
  messages: readonly ChatMessage[],
  opts: { headers: readonly string[]; secret: string },
): Identity {
  const tenant = tenantOf(headers, opts.secret);
  for (const name of opts.headers) {
    const raw = headers[name];
    const id = Array.isArray(raw) ? raw.join(',') : raw;
    if (id === undefined || id === '') continue;
    if (Buffer.byteLength(id) > MAX_CONVERSATION_ID_BYTES) throw errors.headerTooLong(name, MAX_CONVERSATION_ID_BYTES);
    return { tenant, conversation: conversationIdHash(tenant, id, opts.secret), explicit: true };
  }
  const hashes = leadingHashes(messages);
  return { tenant, conversation: keyedHash(opts.secret, 'derived', tenant, hashes.join('.')), explicit: false, leadingHashes: hashes };
}
