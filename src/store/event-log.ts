import type { ConversationKey } from './conversation-key.js';

/** The compacting route a conversation belongs to: its records and events are kept per route (wire/format.ts). */
export type EventRoute = 'chat' | 'responses' | 'messages';

/** What recap did to one message of a request (events/view-map.ts). */
export type MessageState = 'pinned' | 'kept' | 'cleared' | 'summarized' | 'dropped' | 'summary' | 'recalled';

/**
 * One row of a request's view map: `count` messages from request index `index`, all of `role`
 * (`*` for a run of several) and `state`, `tokens` in all. Messages one by one, except runs of one
 * state that the map's bound folds together. No text of any message.
 */
export type ViewRow = [index: number, count: number, role: string, state: MessageState, tokens: number];

// What recap keeps of each request for the listing API and the dashboard, and the contract both
// stores honour (event-log.case.ts runs it for memory, Redis and Redis Cluster). Numbers and names
// only: no prompt text is ever part of an event, an entry or a count.

/** One request of a conversation, written after its response ended. */
export interface ConversationEvent {
  /** ms since epoch, when the request ended. */
  at: number;
  /** A compacting route, or on a request that belongs to no conversation the pass-through route's name (counts only). */
  route: EventRoute | string;
  /** As the client named it, cut (event-from-log.ts). */
  model: string;
  /** The model's config entry (`match`): what the overview groups by. */
  model_label: string;
  /** x-recap-action. */
  action: string;
  /** x-recap-audit, on a model in audit mode. */
  audit?: string;
  /** The (projected) new checkpoint of a compaction: a new summary, or cleared tool results only. */
  compaction?: 'summary' | 'clearing';
  tokens_in: number;
  /** What went upstream (in audit mode the client's own prompt: tokens_in). */
  tokens_out: number;
  /** Audit mode: what recap would have forwarded (x-recap-tokens-out). */
  projected_tokens_out?: number;
  budget?: number;
  /** Tool results shown as stubs in the (projected) view. */
  cleared: number;
  summarizer_calls: number;
  summarizer_tokens: number;
  recalls: number;
  latency_ms: number;
  /** Of latency_ms, recap's own time before the request went upstream (counting, planning, summarizing). */
  own_ms?: number;
  status: number;
  /** Models with `pricing` (currency of the prices): what the request cost, summarizer included. */
  cost?: number;
  /** What sending the client's whole request would have cost, minus `cost` (pricing/request-cost.ts). */
  cost_saved?: number;
  /** Audit mode: what recap's view would have cost. */
  projected_cost?: number;
  /** Prompt tokens the upstream read from its cache (and wrote to it, where it reports that). */
  cached_tokens?: number;
  cache_write_tokens?: number;
  /** The cost model's figures for a compaction it weighed: saves ~X over `calls` calls, costs ~Y. */
  cost_decision?: { saves: number; costs: number; calls: number; verdict: string };
  outcome?: string;
  error?: string;
  /** The (projected) forwarded view per message of the request, when recap changed it. */
  view?: ViewRow[];
  /** The summary message the view carries, in tokens (0: none). */
  summary_tokens?: number;
}

/** A request that ended in an error, for the overview's list: no text but recap's own error code. */
export interface ErrorEntry {
  at: number;
  status: number;
  /** recap's error code, or null for an upstream's error (passed through as it came). */
  code: string | null;
  model: string;
  route: string;
  tenant: string;
  /** The conversation's hash when the request belongs to one (the dashboard links it). */
  conversation: string | null;
}

/** Errors kept per tenant, and for all tenants together. */
export const ERRORS_KEPT = 100;

export interface StoredEvent {
  /** Orders the events of one conversation; the events page cursor. */
  id: string;
  event: ConversationEvent;
}

/** A conversation in the listing: what its events added up to. */
export interface ConversationEntry {
  tenant: string;
  conversation: string;
  /** The id as the client sent it, when it sent one and ids are kept (events.keep_ids); else null. */
  id: string | null;
  route: string;
  model: string;
  first_seen: number;
  last_seen: number;
  requests: number;
  tokens_in: number;
  tokens_out: number;
  tokens_saved: number;
  projected_tokens_saved: number;
  last_action: string;
  last_audit: string | null;
  /** recap_recall calls answered over the conversation's requests. */
  recalls: number;
}

export interface EventLimits {
  /** Events kept per conversation (the oldest go first). */
  perConversation: number;
  /**
   * Conversations kept in each tenant's index; the index of all tenants holds what every tenant's
   * holds, so that no tenant's traffic pushes another's conversations out of the admin's listing.
   */
  conversations: number;
  /** Events kept per tenant, over all its conversations. Past either bound its least recently written conversations go, events and entry. */
  perTenant: number;
  /** The in-memory store's events in all, in bytes (JSON): past it the least recently written logs go. */
  memoryMaxBytes: number;
}

export const DEFAULT_EVENT_LIMITS: EventLimits = { perConversation: 200, conversations: 10_000, perTenant: 20_000, memoryMaxBytes: 64 * 1024 * 1024 };

/** What a store could not read back (written by something else, or damaged): skipped, and counted. */
export type UnreadableKind = 'event' | 'entry' | 'index_member';

export type Resolution = 'minute' | 'hour';

/** The overview's counts of one time bucket, by `<model label>|<metric>` (event-counts.ts). */
export interface StatsBucket {
  /** Start of the bucket, ms since epoch. */
  at: number;
  counts: Record<string, number>;
}

export interface Page<T> {
  items: T[];
  /** Pass it back for the next (older) page; null on the last one. */
  next: string | null;
}

/** `tenant: null` is every tenant together (the admin's view). */
/** One request's event, as the recorder hands it on: its conversation, and the id the client sent (null: derived, or not kept). */
export interface RecordedEvent {
  key: ConversationKey;
  event: ConversationEvent;
  id: string | null;
}

export interface EventLog {
  /** Appends the event to the conversation's log and adds it to its entry, its tenant's index and the counts. */
  record(key: ConversationKey, event: ConversationEvent, id: string | null): Promise<void>;
  /** Records each event of a batch, in order: what record() one by one leaves, in fewer round trips. */
  recordAll(batch: readonly RecordedEvent[]): Promise<void>;
  /** Newest first. */
  events(key: ConversationKey, page: { before?: string; limit: number }): Promise<Page<StoredEvent>>;
  entry(key: ConversationKey): Promise<ConversationEntry | null>;
  /** Newest last_seen first. */
  conversations(tenant: string | null, page: { after?: string; limit: number }): Promise<Page<ConversationEntry>>;
  /** Adds counts (a background summarizer call's spend) to the tenant's and the overall buckets at `at`. */
  addCounts(tenant: string, at: number, counts: Record<string, number>): Promise<void>;
  /** The buckets of [from, to] that hold anything, oldest first. */
  counts(tenant: string | null, resolution: Resolution, from: number, to: number): Promise<StatsBucket[]>;
  /** Forgets the conversation's events and entry; whether there were any. */
  forget(key: ConversationKey): Promise<boolean>;
  /** Keeps an error for the tenant's list and the list of all (each the newest ERRORS_KEPT, for the records' TTL). */
  recordError(error: ErrorEntry): Promise<void>;
  /** Newest first. */
  errors(tenant: string | null, limit: number): Promise<ErrorEntry[]>;
}

/** An error list's item as a store read it back; null when it is not one recap wrote. */
export function parseErrorEntry(value: unknown): ErrorEntry | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const e = value as Partial<ErrorEntry>;
  const ok =
    typeof e.at === 'number' &&
    Number.isFinite(e.at) &&
    Math.abs(e.at) < 8.64e15 &&
    typeof e.status === 'number' &&
    (e.code === null || typeof e.code === 'string') &&
    typeof e.model === 'string' &&
    typeof e.route === 'string' &&
    typeof e.tenant === 'string' &&
    (e.conversation === null || typeof e.conversation === 'string');
  return ok ? (e as ErrorEntry) : null;
}

/** Bucket sizes, and how long each resolution's buckets are kept (the hour ones: as long as the records). */
export const BUCKET_MS: Record<Resolution, number> = { minute: 60_000, hour: 3_600_000 };
export const MINUTE_BUCKETS_KEPT_MS = 3 * 3_600_000;

export function bucketStart(at: number, resolution: Resolution): number {
  return Math.floor(at / BUCKET_MS[resolution]) * BUCKET_MS[resolution];
}

/** The listing's cursor: the last entry shown (last_seen, then conversation tag, both descending). */
export function listingCursor(entry: Pick<ConversationEntry, 'last_seen' | 'tenant' | 'conversation'>): string {
  return Buffer.from(`${entry.last_seen}:${entry.tenant}.${entry.conversation}`).toString('base64url');
}

export function parseListingCursor(cursor: string): { score: number; tag: string } | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,16}):([A-Za-z0-9_-]{1,256}\.[A-Za-z0-9_-]{1,256})$/.exec(text);
  return match ? { score: Number(match[1]), tag: match[2]! } : null;
}

const TENANT = /^[A-Za-z0-9_-]{1,256}$/;

/** A tenant hash as part of a key, or `*` for all tenants (which no hash can be): nothing a caller chose. */
export function tenantScope(tenant: string | null): string {
  if (tenant === null) return '*';
  if (!TENANT.test(tenant)) throw new TypeError('tenant store keys must be base64url hashes');
  return tenant;
}

/** Event ids are `<ms>-<seq>`, as Redis streams make them. */
export const EVENT_ID = /^\d{1,16}-\d{1,16}$/;
