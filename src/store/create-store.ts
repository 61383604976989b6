import type { StoreConfig } from '../config/schema.js';
import type { EventLimits, UnreadableKind } from './event-log.js';
import { MemoryStore } from './memory-store.js';
import { RedisStore } from './redis-store.js';
import type { Store } from './store.js';

export interface CreateStoreHooks {
  /** Redis connection errors (repeated while Redis is down), for the caller to log. */
  onError?: (err: Error) => void;
  /** What the event log skipped because it could not read it back. */
  onUnreadable?: (kind: UnreadableKind) => void;
}

/**
 * Redis when `store.url` is set (REDIS_URL overrides it in config.ts), else the in-memory store.
 * Resolves even when Redis is unreachable: recap then serves without records until it returns.
 */
export async function createStore(config: StoreConfig, hooks: CreateStoreHooks = {}, events?: EventLimits): Promise<Store> {
  const limits = { ttlMs: config.ttl_seconds * 1000, events, onUnreadable: hooks.onUnreadable };
  if (config.url === undefined) {
    return new MemoryStore({ ...limits, maxConversations: config.memory_max_conversations });
  }
  return RedisStore.open({
    ...limits,
    url: config.url,
    keyPrefix: config.key_prefix,
    commandTimeoutMs: config.command_timeout_ms,
    onError: hooks.onError,
  });
}
