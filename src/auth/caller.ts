import type { IncomingHttpHeaders } from 'node:http';
import { errors } from '../errors.js';
import { CREDENTIAL_HEADERS } from '../upstream/headers.js';
import type { Client, ClientKeys } from './client-keys.js';

// Who sent a request, as recap decided at the door (app.ts), before anything else reads it.
// With `clients` configured only their keys get in, and the tenant is the client. Without, the
// caller's own credential (whatever it is: the upstream judges it) is the tenant, and a caller
// with none is anonymous.

export type Caller =
  | { kind: 'client'; client: Client }
  | { kind: 'credential'; credential: string }
  /** `shared`: all anonymous callers are one tenant (server.anonymous: shared); else they keep no records. */
  | { kind: 'anonymous'; shared: boolean };

/** The credential a caller presents, or '' for none. */
export function credentialOf(headers: IncomingHttpHeaders): string {
  const value = headers.authorization ?? headers['api-key'] ?? headers['x-api-key'];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

const BEARER = /^bearer +(\S+)$/i;

export interface DoorPolicy {
  /** Set when `clients` are configured. */
  keys?: ClientKeys;
  anonymous: 'off' | 'shared';
}

/**
 * Decides who the caller is, or throws recap's 401. With clients, the client's credential headers
 * are removed from the request here: nothing after the door (forwarding, the summarizer, logs)
 * can pass on a key meant for recap.
 */
export function authenticate(headers: IncomingHttpHeaders, policy: DoorPolicy, anthropic = false): Caller {
  if (!policy.keys) {
    const credential = credentialOf(headers);
    return credential === '' ? { kind: 'anonymous', shared: policy.anonymous === 'shared' } : { kind: 'credential', credential };
  }
  const authorization = headers.authorization;
  // Anthropic clients (Claude Code's ANTHROPIC_API_KEY) send their key as x-api-key.
  const apiKey = anthropic && typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined;
  for (const name of CREDENTIAL_HEADERS) delete headers[name];
  if ((authorization === undefined || authorization === '') && !apiKey) throw errors.unauthorized();
  const key = authorization ? BEARER.exec(authorization)?.[1] : apiKey;
  const client = key === undefined ? undefined : policy.keys.find(key);
  if (!client) throw errors.invalidApiKey();
  return { kind: 'client', client };
}

/** Anthropic's Messages routes, where a client key may come as x-api-key. */
export function isAnthropicPath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0] ?? '';
  return path === '/v1/messages' || path.startsWith('/v1/messages/');
}

/** Whether the caller may name this model: only a configured client's `models` restrict it. */
export function mayUse(caller: Caller, model: string): boolean {
  return caller.kind !== 'client' || caller.client.mayUse(model);
}
