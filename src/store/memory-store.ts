import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { mergeCheckpoint } from './checkpoints.js';
import { conversationTag } from './conversation-tag.js';
import type { AddCheckpointResult, Checkpoint, ConversationKey, ConversationRecord, Store, StoreLimits } from './store.js';
import { acceptedKey, spendKey, spendTtlMs } from './tenant-keys.js';

// The store of a single recap process (no Redis configured). Bounded, so a long-running process
// with many conversations keeps a fixed memory ceiling: least recently used conversations go first.

export interface MemoryStoreOptions extends StoreLimits {
  maxConversations: number;
}

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  private readonly records: LRUCache<string, ConversationRecord>;
  // Per-entry TTL on set; bounded like the records so abandoned locks cannot pile up.
  private readonly locks: LRUCache<string, string>;

  constructor(private readonly options: MemoryStoreOptions) {
    this.records = new LRUCache({ max: options.maxConversations, ttl: options.ttlMs, updateAgeOnGet: true });
    this.locks = new LRUCache({ max: options.maxConversations });
    this.tenantEntries = new LRUCache({ max: options.maxConversations });
  }

  async load(key: ConversationKey): Promise<ConversationRecord | null> {
    const record = this.records.get(conversationTag(key));
    // A copy, so a caller mutating its result cannot change what the store holds (as with Redis).
    return record ? structuredClone(record) : null;
  }

  async addCheckpoint(key: ConversationKey, checkpoint: Checkpoint, expectedVersion: number): Promise<AddCheckpointResult> {
    const tag = conversationTag(key);
    const current = this.records.get(tag);
    const version = current?.version ?? 0;
    if (version !== expectedVersion) return { ok: false, current: version };
    const checkpoints = mergeCheckpoint(current?.checkpoints ?? [], structuredClone(checkpoint), this.options.maxCheckpoints);
    this.records.set(tag, { version: version + 1, checkpoints, updatedAt: Date.now() });
    return { ok: true, version: version + 1 };
  }

  async delete(key: ConversationKey): Promise<boolean> {
    return this.records.delete(conversationTag(key));
  }

  async tryLock(key: ConversationKey, boundary: string, ttlMs: number): Promise<string | null> {
    const lockKey = this.lockKey(key, boundary);
    if (this.locks.has(lockKey)) return null;
    const token = randomBytes(16).toString('base64url');
    this.locks.set(lockKey, token, { ttl: ttlMs });
    return token;
  }

  async unlock(key: ConversationKey, boundary: string, token: string): Promise<void> {
    const lockKey = this.lockKey(key, boundary);
    if (this.locks.get(lockKey) === token) this.locks.delete(lockKey);
  }

  async isLocked(key: ConversationKey, boundary: string): Promise<boolean> {
    return this.locks.has(this.lockKey(key, boundary));
  }

  async ping(): Promise<void> {}

  state(): 'ready' {
    return 'ready';
  }

  async close(): Promise<void> {
    this.records.clear();
    this.locks.clear();
    this.tenantEntries.clear();
  }

  private lockKey(key: ConversationKey, boundary: string): string {
    return `${conversationTag(key)}\n${boundary}`;
  }

  // Per-tenant entries (spend counts, accepted credentials), bounded like the records; each expires on its own TTL.
  private readonly tenantEntries: LRUCache<string, number>;

  async addTenantSpend(tenant: string, windowStart: number, tokens: number, windowMs: number): Promise<number> {
    const key = spendKey(tenant, windowStart);
    const total = (this.tenantEntries.get(key) ?? 0) + tokens;
    this.tenantEntries.set(key, total, { ttl: spendTtlMs(windowMs) });
    return total;
  }

  async tenantSpend(tenant: string, windowStart: number): Promise<number> {
    return this.tenantEntries.get(spendKey(tenant, windowStart)) ?? 0;
  }

  async markAccepted(id: string, ttlMs: number): Promise<void> {
    this.tenantEntries.set(acceptedKey(id), 1, { ttl: ttlMs });
  }

  async isAccepted(id: string): Promise<boolean> {
    return this.tenantEntries.has(acceptedKey(id));
  }
}
