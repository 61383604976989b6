import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';
import { type Caller, credentialOf } from '../auth/caller.js';
import type { Client } from '../auth/client-keys.js';
import { errors } from '../errors.js';
import type { ChatMessage } from '../messages/types.js';
import { messageHash } from './canonical.js';

export { credentialOf } from '../auth/caller.js';

export const MAX_CONVERSATION_ID_BYTES = 512;

export interface Identity {
  /** Keyed hash of the caller (client name, or credential): records of one tenant are invisible to every other. */
  tenant: string;
  /** Keyed hash of the conversation id (header) or of the conversation's opening messages. */
  conversation: string;
  /** Whether the id came from the header (true) or was derived from the messages (false). */
  explicit: boolean;
  /** The header's id as text (at most MAX_CONVERSATION_ID_BYTES bytes), when explicit. */
  id?: string;
  /**
   * False for a caller with no credential (unless server.anonymous is `shared`): it reads and
   * writes no checkpoints and gets no background preparation, since it is nobody in particular.
   */
  keepsRecords: boolean;
}

function keyedHash(secret: string, ...parts: string[]): string {
  const h = createHmac('sha256', secret);
  for (const p of parts) h.update(p).update('\0');
  return h.digest('base64url');
}

// A conversation's every request works out the same hash of its id or opening, and a keyed hash
// costs 10-40 µs outside a tight loop (OpenSSL sets the HMAC up afresh each time): the hashes of
// the conversations active lately are kept, by what they hash (a secret credential never is).
// An opening of hundreds of pinned messages is hashed each time rather than kept.
const conversationHashes = new LRUCache<string, { secret: string; hash: string }>({ max: 4096 });
const MAX_KEPT_INPUT_CHARS = 4096;

function conversationKeyedHash(secret: string, ...parts: string[]): string {
  // keyedHash ends each part with a NUL: the joined parts name exactly one input.
  const input = parts.join('\0');
  if (input.length > MAX_KEPT_INPUT_CHARS) return keyedHash(secret, ...parts);
  const known = conversationHashes.get(input);
  if (known?.secret === secret) return known.hash;
  const hash = keyedHash(secret, ...parts);
  conversationHashes.set(input, { secret, hash });
  return hash;
}

/** What a tenant hash looks like (an HMAC-SHA256 in base64url); admins name tenants by it. */
export const TENANT_HASH = /^[A-Za-z0-9_-]{43}$/;

// Worked out once per request and caller, and once per process for a configured client (its name
// and the secret are all it depends on): identify and the request's event both ask. A credential's
// is never kept past its request: it is cached on the request's own Caller value, which goes with
// the request (a cache keyed by the raw credentials would keep them in memory long after).
// A client's tenant and a credential's live in separate domains, so no name equals a credential.
const tenants = new WeakMap<Caller | Client, { secret: string; tenant: string }>();

export function tenantOfCaller(caller: Caller, secret: string): string {
  const owner = caller.kind === 'client' ? caller.client : caller;
  const known = tenants.get(owner);
  if (known?.secret === secret) return known.tenant;
  const tenant = workOutTenant(caller, secret);
  tenants.set(owner, { secret, tenant });
  return tenant;
}

function workOutTenant(caller: Caller, secret: string): string {
  switch (caller.kind) {
    case 'client':
      return clientTenant(caller.client.name, secret);
    case 'credential':
      return keyedHash(secret, 'tenant', caller.credential);
    case 'anonymous':
      return keyedHash(secret, 'tenant', '');
  }
}

export function clientTenant(name: string, secret: string): string {
  return keyedHash(secret, 'client', name);
}

/** The tenant of a caller's credential, when no clients are configured. */
export function tenantOf(headers: IncomingHttpHeaders, secret: string): string {
  return keyedHash(secret, 'tenant', credentialOf(headers));
}

export function keepsRecords(caller: Caller): boolean {
  return caller.kind !== 'anonymous' || caller.shared;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The one reading of a conversation id, for the header and the inspection URL alike: its bytes as
 * UTF-8. Node hands header values over as Latin-1 (one char per byte), so the bytes come back
 * exactly and are decoded here; the URL's percent-encoded UTF-8 decodes to the same text. Bytes
 * that are not UTF-8 can only be Latin-1 (what fetch sends for `é`), read as such: `été` names one
 * conversation whichever of the two a client sent.
 */
export function conversationIdText(headerValue: string): string {
  try {
    return utf8.decode(Buffer.from(headerValue, 'latin1'));
  } catch {
    return headerValue;
  }
}

/** A conversation's records are per route: the same id on another route names another conversation. */
export function conversationIdHash(tenant: string, id: string, secret: string, route = 'chat'): string {
  return route === 'chat' ? conversationKeyedHash(secret, 'conversation', tenant, id) : conversationKeyedHash(secret, 'conversation', tenant, id, route);
}

/**
 * Without the header, the pinned messages plus the first user message name the conversation:
 * they stay the same while the history grows, and differ between unrelated conversations. Their
 * canonical hashes stand for them.
 */
export function leadingHashes(messages: readonly ChatMessage[]): string[] {
  const opening: string[] = [];
  for (const m of messages) {
    opening.push(messageHash(m));
    if (m.role === 'user') break;
  }
  return opening;
}

/** The conversation id a client named in a header of its request (`server.conversation_header`). */
export interface NamedConversation {
  header: string;
  /** As the client sent it (Latin-1, one char per byte): checked for its size where it is used. */
  raw: string;
}

/** The first of `names` the request carries, read once per request: identify and forward-first take this value. */
export function namedConversation(headers: IncomingHttpHeaders, names: readonly string[]): NamedConversation | undefined {
  for (const header of names) {
    const value = headers[header];
    const raw = Array.isArray(value) ? value.join(',') : value;
    if (raw !== undefined && raw !== '') return { header, raw };
  }
  return undefined;
}

export interface IdentifyOptions {
  secret: string;
  /** The route whose conversation this is (`chat` unless said otherwise). */
  route?: string;
}

/**
 * The identity of a request: its tenant, and its conversation as the client `named` it or, else,
 * derived from `opening`, the canonical hashes of what opens the conversation (worked out only then).
 */
export function identifyBy(caller: Caller, named: NamedConversation | undefined, opening: () => readonly string[], opts: IdentifyOptions): Identity {
  const tenant = tenantOfCaller(caller, opts.secret);
  const records = keepsRecords(caller);
  const route = opts.route ?? 'chat';
  if (named) {
    // The limit counts the bytes the client sent (Node's Latin-1 string has one char per byte).
    if (named.raw.length > MAX_CONVERSATION_ID_BYTES) throw errors.headerTooLong(named.header, MAX_CONVERSATION_ID_BYTES);
    const text = conversationIdText(named.raw);
    return { tenant, conversation: conversationIdHash(tenant, text, opts.secret, route), explicit: true, id: text, keepsRecords: records };
  }
  const hashes = opening();
  const parts = route === 'chat' ? [hashes.join('.')] : [hashes.join('.'), route];
  return { tenant, conversation: conversationKeyedHash(opts.secret, 'derived', tenant, ...parts), explicit: false, keepsRecords: records };
}
