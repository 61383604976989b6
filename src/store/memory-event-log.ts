import { LRUCache } from 'lru-cache';
import { conversationTag } from './conversation-tag.js';
import { addCountsInto, addToEntry, eventCounts } from './event-counts.js';
import {
  BUCKET_MS,
  bucketStart,
  type ConversationEntry,
  type ConversationEvent,
  type EventLimits,
  ERRORS_KEPT,
  type ErrorEntry,
  type EventLog,
  listingCursor,
  MINUTE_BUCKETS_KEPT_MS,
  type Page,
  type RecordedEvent,
  parseListingCursor,
  type Resolution,
  type StatsBucket,
  type StoredEvent,
  tenantScope,
} from './event-log.js';
import type { ConversationKey } from './store.js';
import { TenantEventBounds } from './tenant-event-bounds.js';

// The event log of a single recap process: the same bounds as on Redis (events per conversation,
// conversations and events per tenant, the record's TTL), and least recently written conversations
// go first past the memory store's own bound.

interface Log {
  /** Of the last id made: ids stay increasing when the clock goes back. */
  lastMs: number;
  seq: number;
  events: StoredEvent[];
  /** JSON bytes of `events`, alongside each. */
  sizes: number[];
  bytes: number;
}

// Buckets of every tenant and of all of them, at both resolutions.
const MAX_BUCKETS = 100_000;

export class MemoryEventLog implements EventLog {
  private readonly logs: LRUCache<string, Log>;
  private readonly entries: LRUCache<string, ConversationEntry>;
  private readonly buckets = new LRUCache<string, Map<string, number>>({ max: MAX_BUCKETS });
  private readonly bounds: TenantEventBounds;
  /** Error lists by tenant scope, newest first. */
  private readonly errorLists: LRUCache<string, ErrorEntry[]>;

  constructor(private readonly limits: EventLimits & { ttlMs: number; maxConversations: number }) {
    this.logs = new LRUCache({ max: limits.maxConversations, ttl: limits.ttlMs, maxSize: limits.memoryMaxBytes, sizeCalculation: (log) => Math.max(1, log.bytes) });
    this.entries = new LRUCache({ max: limits.maxConversations, ttl: limits.ttlMs });
    this.bounds = new TenantEventBounds(limits, limits.maxConversations);
    this.errorLists = new LRUCache({ max: limits.maxConversations, ttl: limits.ttlMs });
  }

  async recordError(error: ErrorEntry): Promise<void> {
    for (const scope of [tenantScope(error.tenant), tenantScope(null)]) {
      const list = [{ ...error }, ...(this.errorLists.get(scope) ?? [])].slice(0, ERRORS_KEPT);
      this.errorLists.set(scope, list);
    }
  }

  async errors(tenant: string | null, limit: number): Promise<ErrorEntry[]> {
    return (this.errorLists.get(tenantScope(tenant)) ?? []).slice(0, limit).map((e) => ({ ...e }));
  }

  async recordAll(batch: readonly RecordedEvent[]): Promise<void> {
    for (const { key, event, id } of batch) await this.record(key, event, id);
  }

  async record(key: ConversationKey, event: ConversationEvent, id: string | null): Promise<void> {
    const tag = conversationTag(key);
    const log = this.logs.get(tag) ?? { lastMs: 0, seq: 0, events: [], sizes: [], bytes: 0 };
    const ms = Math.max(Date.now(), log.lastMs);
    log.seq = ms === log.lastMs ? log.seq + 1 : 0;
    log.lastMs = ms;
    const size = JSON.stringify(event).length;
    log.events.push({ id: `${ms}-${log.seq}`, event: structuredClone(event) });
    log.sizes.push(size);
    log.bytes += size;
    const extra = log.events.length - this.limits.perConversation;
    if (extra > 0) {
      log.events.splice(0, extra);
      for (const dropped of log.sizes.splice(0, extra)) log.bytes -= dropped;
    }
    // A new object, so that the cache weighs the log as it now is (it weighs a value when it changes).
    this.logs.set(tag, { ...log });
    this.entries.set(tag, addToEntry(this.entries.get(tag), key, event, id));
    for (const evicted of this.bounds.add(key.tenant, tag)) {
      this.logs.delete(evicted);
      this.entries.delete(evicted);
    }
    await this.addCounts(key.tenant, event.at, eventCounts(event));
  }

  async events(key: ConversationKey, page: { before?: string; limit: number }): Promise<Page<StoredEvent>> {
    const events = this.logs.get(conversationTag(key))?.events ?? [];
    const older = page.before === undefined ? events : events.filter((e) => compareIds(e.id, page.before!) < 0);
    const items = older.slice(-page.limit).reverse();
    const more = older.length > page.limit;
    return { items: structuredClone(items), next: more ? items.at(-1)!.id : null };
  }

  async entry(key: ConversationKey): Promise<ConversationEntry | null> {
    const entry = this.entries.get(conversationTag(key));
    return entry ? { ...entry } : null;
  }

  async conversations(tenant: string | null, page: { after?: string; limit: number }): Promise<Page<ConversationEntry>> {
    tenantScope(tenant);
    const all: ConversationEntry[] = [];
    for (const entry of this.entries.values()) if (tenant === null || entry.tenant === tenant) all.push(entry);
    // Each tenant keeps its newest `conversations` (bounds), and the admin's listing holds them all, as Redis's does.
    const newest = all.sort(newestFirst);
    const cursor = page.after === undefined ? null : parseListingCursor(page.after);
    const after = cursor === null ? newest : newest.filter((e) => newestFirst(e, { last_seen: cursor.score, ...tagParts(cursor.tag) }) > 0);
    const items = after.slice(0, page.limit).map((e) => ({ ...e }));
    return { items, next: after.length > page.limit ? listingCursor(items.at(-1)!) : null };
  }

  async addCounts(tenant: string, at: number, counts: Record<string, number>): Promise<void> {
    for (const scope of [tenantScope(tenant), tenantScope(null)]) {
      for (const resolution of ['minute', 'hour'] as const) {
        const name = bucketName(scope, resolution, bucketStart(at, resolution));
        const bucket = this.buckets.get(name) ?? new Map<string, number>();
        addCountsInto(bucket, counts);
        this.buckets.set(name, bucket, { ttl: resolution === 'minute' ? MINUTE_BUCKETS_KEPT_MS : this.limits.ttlMs });
      }
    }
  }

  async counts(tenant: string | null, resolution: Resolution, from: number, to: number): Promise<StatsBucket[]> {
    const out: StatsBucket[] = [];
    for (let at = bucketStart(from, resolution); at <= to; at += BUCKET_MS[resolution]) {
      const bucket = this.buckets.get(bucketName(tenantScope(tenant), resolution, at));
      if (bucket) out.push({ at, counts: Object.fromEntries(bucket) });
    }
    return out;
  }

  async forget(key: ConversationKey): Promise<boolean> {
    const tag = conversationTag(key);
    this.bounds.remove(key.tenant, tag);
    const hadLog = this.logs.delete(tag);
    return this.entries.delete(tag) || hadLog;
  }

  clear(): void {
    this.logs.clear();
    this.entries.clear();
    this.buckets.clear();
    this.bounds.clear();
    this.errorLists.clear();
  }
}

const bucketName = (scope: string, resolution: Resolution, at: number) => `${scope}|${resolution}|${at}`;

function tagParts(tag: string): { tenant: string; conversation: string } {
  const dot = tag.indexOf('.');
  return { tenant: tag.slice(0, dot), conversation: tag.slice(dot + 1) };
}

/** Newest last_seen first; among equals, the greater tag first (Redis's ZRANGE … REV order). */
function newestFirst(a: Pick<ConversationEntry, 'last_seen' | 'tenant' | 'conversation'>, b: Pick<ConversationEntry, 'last_seen' | 'tenant' | 'conversation'>): number {
  if (a.last_seen !== b.last_seen) return b.last_seen - a.last_seen;
  const x = `${a.tenant}.${a.conversation}`;
  const y = `${b.tenant}.${b.conversation}`;
  return x === y ? 0 : x < y ? 1 : -1;
}

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
}
