import type { ConversationKey } from './conversation-key.js';
import type { EventLimits, UnreadableKind, EventLog } from './event-log.js';

export type { ConversationKey } from './conversation-key.js';

// What recap keeps per conversation, and the contract both stores (memory, Redis) honour.
// The shared case suite (store.case.ts) is the executable form of this contract.

/**
 * "Of the first `prefix` items after the pinned ones, identified by `chainHash`, the first
 * `covered` are summarized as `summary`, except `kept` (shown verbatim after it); of the rest,
 * `cleared` are shown as stubs." (docs/design.md rules 1, 6, 11.)
 */
export interface Checkpoint {
  covered: number;
  /** Items the checkpoint is about, at least `covered`; absent in records written before clearing: `covered`. */
  prefix?: number;
  /** Hash-chain link of exactly those `prefix` items (canonical.ts `hashChain`). */
  chainHash: string;
  /** Items below `covered` kept verbatim (later instructions, the opening task, the task of a cut round); absent: none. */
  kept?: number[];
  /** Results in [covered, prefix) whose content is replaced by a stub; absent: none. */
  cleared?: number[];
  /** May be '' (the window strategy keeps no summary). */
  summary: string;
  summaryTokens: number;
  coveredTokens: number;
  /** Summarizer model or strategy name. */
  model: string;
  /** ms since epoch */
  createdAt: number;
  /**
   * Set on a provisional checkpoint (rule 9): made visible as soon as its summary was validated,
   * so that waiting requests use it at once; a turn that used it and got a 2xx confirms it (the
   * field goes), the failed turn that made it discards it, and past this time (ms since epoch)
   * nobody uses it any more.
   */
  pendingUntil?: number;
  /** Names the turn that made a provisional checkpoint, so that only it discards it. */
  pendingToken?: string;
}

export interface ConversationRecord {
  /** Bumped by every successful write; a missing record is version 0. */
  version: number;
  /** Sorted by prefix ascending. */
  checkpoints: Checkpoint[];
  /** ms since epoch of the last write */
  updatedAt: number;
}

/** The checkpoint list after a change, or null for "nothing to change" (pure: checkpoints.ts). */
export type CheckpointEdit = (list: readonly Checkpoint[], now: number) => Checkpoint[] | null;

export type UpdateResult = { ok: true; version: number } | { ok: false; current: number };

/** One compaction in progress on one branch (rule 9): it will produce a checkpoint of this prefix. */
export interface LockClaim {
  /** Unique per branch and boundary: the chain link of the prefix, usually. */
  id: string;
  prefix: number;
  /** Chain link of the claimed prefix: a request whose own link at `prefix` equals it waits for it. */
  link: string;
}

export interface LockHolder extends LockClaim {
  token: string;
}

export interface LockTable {
  /** Locks held now; expired ones are left out. */
  holders: LockHolder[];
}

/**
 * What taking a lock found, read in the same step as the lock was taken (or refused): the other
 * locks held at that moment, so that every lock taken later sees this one among its own.
 */
export interface LockGrant {
  /** The caller's token, or null: someone holds this id. */
  token: string | null;
  /** The other locks held when this one was taken (or refused); expired ones are left out. */
  earlier: LockHolder[];
}

export type StoreState = 'ready' | 'connecting' | 'down';

/**
 * Every method either settles within the store's command timeout or rejects with
 * StoreUnavailableError, so a request can always go on without records (docs/design.md rule 8).
 */
export interface Store {
  readonly kind: 'memory' | 'redis';
  /** Per-request events, the conversation index and the overview's counts (event-log.ts). */
  readonly events: EventLog;
  /** The record, or null; a hit refreshes its TTL. */
  load(key: ConversationKey): Promise<ConversationRecord | null>;
  /** The record's version alone (0: no record), its checkpoints neither sent nor parsed; a hit refreshes its TTL as load's does. */
  loadVersion(key: ConversationKey): Promise<number>;
  /**
   * Applies `edit` to the stored checkpoints under compare-and-set by version. With
   * `expectedVersion` (0 = no record yet) it writes only at that version; without, it applies the
   * edit to what it reads, and reads again when another writer got in between (within its bound).
   */
  updateCheckpoints(key: ConversationKey, edit: CheckpointEdit, expectedVersion?: number): Promise<UpdateResult>;
  /** True when a record existed. */
  delete(key: ConversationKey): Promise<boolean>;
  readLocks(key: ConversationKey): Promise<LockTable>;
  /** Takes the lock `claim.id` for `ttlMs` unless someone holds that id, whatever else is held. */
  tryLock(key: ConversationKey, claim: LockClaim, ttlMs: number): Promise<LockGrant>;
  /**
   * Extends the lock `id` to `ttlMs` from now while `token` holds it (a lease its holder renews
   * while it works, so a holder that dies lets go within one lease); false when it no longer does.
   */
  renewLock(key: ConversationKey, id: string, token: string, ttlMs: number): Promise<boolean>;
  /**
   * Releases the lock only if `token` still holds it (an expired lock may belong to someone else now).
   * When the store cannot answer, it keeps trying in the background until the lock expires.
   */
  unlock(key: ConversationKey, id: string, token: string): Promise<void>;
  ping(): Promise<void>;
  state(): StoreState;
  close(): Promise<void>;
  // Per tenant, apart from any conversation (tenant-keys.ts names their keys). `tenant` is an opaque hash.
  /**
   * Adds summarizer tokens to the tenant's spend in the window that starts at `windowStart` (ms,
   * the same for every replica) and returns the window's total over all replicas; `tokens` may be
   * negative (a call that cost less than it reserved). The count expires on its own once the
   * window is over.
   */
  addTenantSpend(tenant: string, windowStart: number, tokens: number, windowMs: number): Promise<number>;
  /**
   * Adds `tokens` to the tenant's spend in that window only when the new total stays within `limit`
   * or nothing was spent yet (spend-fits.ts), in one atomic step across replicas (a summarizer call
   * reserving what it will cost): the new total, or null when nothing was added.
   */
  reserveTenantSpend(tenant: string, windowStart: number, tokens: number, limit: number, windowMs: number): Promise<number | null>;
  /** The tenant's spend in that window; 0 when nothing was spent. */
  tenantSpend(tenant: string, windowStart: number): Promise<number>;
  /** Remembers for `ttlMs` that an upstream accepted a credential (`id`: an opaque hash of tenant and upstream). */
  markAccepted(id: string, ttlMs: number): Promise<void>;
  isAccepted(id: string): Promise<boolean>;
}

/** Limits every store shares; ms rather than the config's seconds so tests can use tiny TTLs. */
export interface StoreLimits {
  ttlMs: number;
  /** Bounds of the event log; absent: DEFAULT_EVENT_LIMITS. */
  events?: EventLimits;
  /** An event, entry or index member the event log skipped because it could not be read (for a metric). */
  onUnreadable?: (kind: UnreadableKind) => void;
}

export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
