import * as crypto from 'node:crypto';
import { globMatches } from '../config/glob.js';
import type { ClientConfig } from '../config/schema.js';

// The configured clients, looked up by the bearer key a request presents. Keys are kept only as
// SHA-256 digests, and the lookup compares the presented key's digest with every client's in
// constant time, without stopping at a match: neither the time taken nor an early exit tells an
// attacker how much of a key was right, or which client's it was.

export interface Client {
  name: string;
  /** Whether `clients[].models` limits this client to some models. */
  restricted: boolean;
  /** Whether this client may name the model (absent `models`: any). */
  mayUse(model: string): boolean;
  /** Summarizer tokens per window for this client, overriding background.tenant_tokens_per_window. */
  tokensPerWindow?: number;
}

export interface ClientKeys {
  /** The client whose key this is, or undefined. */
  find(presentedKey: string): Client | undefined;
}

/** What a key is kept as. One-shot hashing where Node has it (20.12 on): a fifth of a Hash object's cost, on every request. */
export const keyDigest: (key: string) => Buffer =
  typeof crypto.hash === 'function' ? (key) => crypto.hash('sha256', key, 'buffer') : (key) => crypto.createHash('sha256').update(key, 'utf8').digest();

/** How a presented key's digest is compared with a stored one: in constant time. */
export type DigestComparison = (presented: Buffer, stored: Buffer) => boolean;
export const compareDigests: DigestComparison = crypto.timingSafeEqual;

export function createClientKeys(clients: readonly ClientConfig[], compare: DigestComparison = compareDigests): ClientKeys {
  const entries = clients.map((c) => {
    const globs = c.models;
    const mayUse = globs ? (model: string) => globs.some((glob) => globMatches(glob, model)) : () => true;
    return { digest: keyDigest(c.key), client: { name: c.name, restricted: globs !== undefined, mayUse, tokensPerWindow: c.tenant_tokens_per_window } satisfies Client };
  });
  return {
    find(presentedKey) {
      const presented = keyDigest(presentedKey);
      let found: Client | undefined;
      for (const e of entries) {
        // Digests have one length, so timingSafeEqual never throws; `found` is set without a branch on time.
        const same = compare(presented, e.digest);
        found = same ? e.client : found;
      }
      return found;
    },
  };
}
