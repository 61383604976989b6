import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { conversationTag } from './conversation-tag.js';
import { DEFAULT_EVENT_LIMITS } from './event-log.js';
import { MemoryEventLog } from './memory-event-log.js';
import type { CheckpointEdit, ConversationKey, ConversationRecord, LockClaim, LockGrant, LockHolder, LockTable, Store, StoreLimits, UpdateResult } from './store.js';
import { spendFits } from './spend-fits.js';
import { acceptedKey, spendKey, spendTtlMs } from './tenant-keys.js';

// The store of a single recap process (no Redis configured). Bounded, so a long-running process
// with many conversations keeps a fixed memory ceiling: least recently used conversations go first.

export interface MemoryStoreOptions extends StoreLimits {
  maxConversations: number;
}

interface HeldLock extends LockHolder {
  expiresAt: number;
}

type Locks = Map<string, HeldLock>;

function holdersOf(locks: Locks | undefined): LockHolder[] {
  return [...(locks?.values() ?? [])].map(({ expiresAt: _e, ...holder }) => holder);
}

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  readonly events: MemoryEventLog;
  private readonly records: LRUCache<string, ConversationRecord>;
  // Bounded like the records, so abandoned lock tables cannot pile up.
  private readonly locks: LRUCache<string, Locks>;

  constructor(private readonly options: MemoryStoreOptions) {
    this.records = new LRUCache({ max: options.maxConversations, ttl: options.ttlMs, updateAgeOnGet: true });
    this.locks = new LRUCache({ max: options.maxConversations });
    this.tenantEntries = new LRUCache({ max: options.maxConversations });
    this.events = new MemoryEventLog({ ...(options.events ?? DEFAULT_EVENT_LIMITS), ttlMs: options.ttlMs, maxConversations: options.maxConversations });
  }

  async load(key: ConversationKey): Promise<ConversationRecord | null> {
    const record = this.records.get(conversationTag(key));
    // A copy, so a caller mutating its result cannot change what the store holds (as with Redis).
    return record ? structuredClone(record) : null;
  }

  async loadVersion(key: ConversationKey): Promise<number> {
    return this.records.get(conversationTag(key))?.version ?? 0;
  }

  async updateCheckpoints(key: ConversationKey, edit: CheckpointEdit, expectedVersion?: number): Promise<UpdateResult> {
    const tag = conversationTag(key);
    const current = this.records.get(tag);
    const version = current?.version ?? 0;
    if (expectedVersion !== undefined && version !== expectedVersion) return { ok: false, current: version };
    const next = edit(structuredClone(current?.checkpoints ?? []), Date.now());
    if (next === null) return { ok: true, version };
    this.records.set(tag, { version: version + 1, checkpoints: structuredClone(next), updatedAt: Date.now() });
    return { ok: true, version: version + 1 };
  }

  async delete(key: ConversationKey): Promise<boolean> {
    return this.records.delete(conversationTag(key));
  }

  async readLocks(key: ConversationKey): Promise<LockTable> {
    return { holders: holdersOf(this.liveLocks(key)) };
  }

  async tryLock(key: ConversationKey, claim: LockClaim, ttlMs: number): Promise<LockGrant> {
    const locks = this.liveLocks(key) ?? new Map<string, HeldLock>();
    const earlier = holdersOf(locks);
    if (locks.has(claim.id)) return { token: null, earlier };
    const token = randomBytes(16).toString('base64url');
    locks.set(claim.id, { ...claim, token, expiresAt: Date.now() + ttlMs });
    this.locks.set(conversationTag(key), locks);
    return { token, earlier };
  }

  async renewLock(key: ConversationKey, id: string, token: string, ttlMs: number): Promise<boolean> {
    const held = this.liveLocks(key)?.get(id);
    if (held?.token !== token) return false;
    held.expiresAt = Date.now() + ttlMs;
    return true;
  }

  async unlock(key: ConversationKey, id: string, token: string): Promise<void> {
    const locks = this.liveLocks(key);
    if (locks?.get(id)?.token === token) locks.delete(id);
  }

  async ping(): Promise<void> {}

  state(): 'ready' {
    return 'ready';
  }

  async close(): Promise<void> {
    this.records.clear();
    this.locks.clear();
    this.tenantEntries.clear();
    this.events.clear();
  }

  /** The conversation's lock table with expired locks dropped. */
  private liveLocks(key: ConversationKey): Locks | undefined {
    const locks = this.locks.get(conversationTag(key));
    if (!locks) return undefined;
    const now = Date.now();
    for (const [id, held] of locks) if (held.expiresAt <= now) locks.delete(id);
    return locks;
  }

  // Per-tenant entries (spend counts, accepted credentials), bounded like the records; each expires on its own TTL.
  private readonly tenantEntries: LRUCache<string, number>;

  async addTenantSpend(tenant: string, windowStart: number, tokens: number, windowMs: number): Promise<number> {
    const key = spendKey(tenant, windowStart);
    const total = (this.tenantEntries.get(key) ?? 0) + tokens;
    this.tenantEntries.set(key, total, { ttl: spendTtlMs(windowMs) });
    return total;
  }

  async reserveTenantSpend(tenant: string, windowStart: number, tokens: number, limit: number, windowMs: number): Promise<number | null> {
    // No await between the check and the add: atomic within the process, which is all it serves.
    if (!spendFits(this.tenantEntries.get(spendKey(tenant, windowStart)) ?? 0, tokens, limit)) return null;
    return this.addTenantSpend(tenant, windowStart, tokens, windowMs);
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
