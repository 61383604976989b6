import { LRUCache } from 'lru-cache';
import type { ChatMessage } from '../messages/types.js';
import type { Config } from '../config/schema.js';
import { messageHash } from '../conversation/canonical.js';
import type { EncodingName } from './encodings.js';

// Token counts of messages already seen, so a conversation's history is tokenized once: each turn
// re-sends the whole history and only the new messages need the tokenizer. Keyed by the message's
// canonical hash (SDK extras and key order do not matter) and the encoding. Bounded both by entry
// count and by an estimate of the memory the entries hold, since one process serves many
// conversations.

export type TokenCacheLimits = Pick<Config['tokens'], 'cache_max_entries' | 'cache_max_bytes'>;

// An entry holds its key string (2 bytes per UTF-16 unit) plus, by our estimate, about 100 bytes
// of fixed cost: the number, lru-cache's index slots in its key/value/next/prev/size arrays and
// its Map entry.
const ENTRY_OVERHEAD_BYTES = 100;

export function entryBytes(key: string): number {
  return key.length * 2 + ENTRY_OVERHEAD_BYTES;
}

export interface TokenCache {
  get(key: string): number | undefined;
  set(key: string, tokens: number): void;
  /** Entries held now. */
  readonly entries: number;
  /** The calculated bytes of the entries held now (see entryBytes). */
  readonly bytes: number;
}

/** The key of a message whose canonical hash (canonical.ts `messageHash`) is already known. */
export function tokenCacheKeyFromHash(encoding: EncodingName, hash: string): string {
  return `${encoding}:${hash}`;
}

export function tokenCacheKey(encoding: EncodingName, m: ChatMessage): string {
  return tokenCacheKeyFromHash(encoding, messageHash(m));
}

export function createTokenCache(limits: TokenCacheLimits): TokenCache {
  const lru = new LRUCache<string, number>({
    max: limits.cache_max_entries,
    maxSize: limits.cache_max_bytes,
    sizeCalculation: (_tokens, key) => entryBytes(key),
  });
  return {
    get: (key) => lru.get(key),
    set: (key, tokens) => {
      lru.set(key, tokens);
    },
    get entries() {
      return lru.size;
    },
    get bytes() {
      return lru.calculatedSize;
    },
  };
}
