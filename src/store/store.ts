// What recap keeps per conversation, and the contract both stores (memory, Redis) honour.
// The shared case suite (store.case.ts) is the executable form of this contract.

/** Both parts are already opaque hashes (base64url): a raw credential or header never gets here. */
export interface ConversationKey {
  tenant: string;
  conversation: string;
}

/** "The first `covered` messages after the pinned ones, identified by `chainHash`, are summarized as `summary`." */
export interface Checkpoint {
  covered: number;
  /** Hash-chain link of exactly those covered messages (canonical.ts `hashChain`). */
  chainHash: string;
  /** May be '' (the window strategy keeps no summary). */
  summary: string;
  summaryTokens: number;
  coveredTokens: number;
  /** Summarizer model or strategy name. */
  model: string;
  /** ms since epoch */
  createdAt: number;
}

export interface ConversationRecord {
  /** Bumped by every successful write; a missing record is version 0. */
  version: number;
  /** Sorted by `covered` ascending. */
  checkpoints: Checkpoint[];
  /** ms since epoch of the last write */
  updatedAt: number;
}

export type AddCheckpointResult = { ok: true; version: number } | { ok: false; current: number };

export type StoreState = 'ready' | 'connecting' | 'down';

/**
 * Every method either settles within the store's command timeout or rejects with
 * StoreUnavailableError, so a request can always go on without records (DESIGN rule 8).
 */
export interface Store {
  readonly kind: 'memory' | 'redis';
  /** The record, or null; a hit refreshes its TTL. */
  load(key: ConversationKey): Promise<ConversationRecord | null>;
  /**
   * Compare-and-set by version (0 = no record yet). Merges `checkpoint` in: one with the same
   * covered + chainHash is replaced, and beyond max checkpoints the smallest `covered` are dropped.
   */
  addCheckpoint(key: ConversationKey, checkpoint: Checkpoint, expectedVersion: number): Promise<AddCheckpointResult>;
  /** True when a record existed. */
  delete(key: ConversationKey): Promise<boolean>;
  /** A random token when this caller now holds the lock, null when someone else does. */
  tryLock(key: ConversationKey, boundary: string, ttlMs: number): Promise<string | null>;
  /**
   * Releases the lock only if `token` still holds it (an expired lock may belong to someone else now).
   * When the store cannot answer, it keeps trying in the background until the lock expires.
   */
  unlock(key: ConversationKey, boundary: string, token: string): Promise<void>;
  isLocked(key: ConversationKey, boundary: string): Promise<boolean>;
  ping(): Promise<void>;
  state(): StoreState;
  close(): Promise<void>;
  // Per tenant, apart from any conversation (tenant-keys.ts names their keys). `tenant` is an opaque hash.
  /**
   * Adds summarizer tokens to the tenant's spend in the window that starts at `windowStart` (ms,
   * the same for every replica) and returns the window's total over all replicas. The count
   * expires on its own once the window is over.
   */
  addTenantSpend(tenant: string, windowStart: number, tokens: number, windowMs: number): Promise<number>;
  /** The tenant's spend in that window; 0 when nothing was spent. */
  tenantSpend(tenant: string, windowStart: number): Promise<number>;
  /** Remembers for `ttlMs` that an upstream accepted a credential (`id`: an opaque hash of tenant and upstream). */
  markAccepted(id: string, ttlMs: number): Promise<void>;
  isAccepted(id: string): Promise<boolean>;
}

/** Limits every store shares; ms rather than the config's seconds so tests can use tiny TTLs. */
export interface StoreLimits {
  ttlMs: number;
  maxCheckpoints: number;
}

export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
