import { type Cluster, type Redis, ReplyError } from 'ioredis';
import { conversationTag } from './conversation-tag.js';
import { eventCounts, projectedTokensSaved, tokensSaved } from './event-counts.js';
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
  parseErrorEntry,
  MINUTE_BUCKETS_KEPT_MS,
  type Page,
  type RecordedEvent,
  parseListingCursor,
  type Resolution,
  type StatsBucket,
  type StoredEvent,
  tenantScope,
  type UnreadableKind,
} from './event-log.js';
import { defineEventScripts, type EventScripts } from './redis-event-scripts.js';
import type { ConversationKey } from './store.js';

// The event log on Redis. Per conversation, under its hash tag like its record: a stream of
// events (XADD … MAXLEN) and an entry hash, both with the record's TTL. Per tenant, under the
// tenant's own tag: the index of its conversations (a sorted set by last seen, bounded in
// conversations and in events, what falls out of it deleted) and the count buckets; the same for
// all tenants together under `{*}`, which no tenant hash can be. What cannot be read back (an entry
// or an event not written by recap) is skipped and counted, never taken for an outage.

export interface RedisEventLogOptions extends EventLimits {
  keyPrefix: string;
  ttlMs: number;
  onUnreadable?: ((kind: UnreadableKind) => void) | undefined;
  /** The store's guard: bounds the operation's time and reports failures as unavailability. */
  run<T>(operation: string, work: () => Promise<T>): Promise<T>;
}

export class RedisEventLog implements EventLog {
  private readonly client: (Redis | Cluster) & EventScripts;

  constructor(
    client: Redis | Cluster,
    private readonly options: RedisEventLogOptions,
  ) {
    this.client = defineEventScripts(client);
  }

  async record(key: ConversationKey, e: ConversationEvent, id: string | null): Promise<void> {
    await this.recordAll([{ key, event: e, id }]);
  }

  async recordAll(batch: readonly RecordedEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const calls = batch.map(({ key, event, id }) => this.eventCalls(key, event, id));
    await this.options.run('record_event', async () => {
      const evicted = new Set<string>();
      if (this.client.isCluster) {
        // A batch's keys live in many slots, which a cluster pipeline refuses: each call on its own.
        const replies = await Promise.all(
          calls.map(({ append, tenant, all }) =>
            Promise.all([this.client.recapEventAppend(...append), this.client.recapEventIndex(...tenant), this.client.recapEventIndex(...all)]),
          ),
        );
        for (const [, left] of replies) for (const tag of left) evicted.add(tag);
      } else {
        // One script call for the whole batch: its three calls per event, in order.
        const keys: string[] = [];
        const args: (string | number)[] = [];
        const put = (kind: 'a' | 't' | 'i', width: number, call: readonly (string | number)[]) => {
          for (let i = 0; i < width; i++) keys.push(call[i] as string);
          args.push(kind, call.length - width);
          for (let i = width; i < call.length; i++) args.push(call[i]!);
        };
        for (const { append, tenant, all } of calls) {
          put('a', 2, append);
          put('t', 4, tenant);
          put('i', 4, all);
        }
        for (const tag of await this.client.recapEventBatch(keys.length, ...keys, ...args)) evicted.add(tag);
      }
      if (evicted.size > 0) await this.drop([...evicted]);
    });
  }

  /** The scripts' arguments that record one event: its append, its tenant's index and the index of all. */
  private eventCalls(key: ConversationKey, e: ConversationEvent, id: string | null) {
    const tag = conversationTag(key);
    const { ttlMs, perConversation } = this.options;
    const counts = Object.entries(eventCounts(e)).flat();
    const append: Parameters<EventScripts['recapEventAppend']> = [
      this.key(`{${tag}}:ev`),
      this.key(`{${tag}}:entry`),
      JSON.stringify(e),
      perConversation,
      ttlMs,
      id ?? '',
      e.route,
      e.model,
      e.action,
      e.audit ?? '',
      e.at,
      e.tokens_in,
      e.tokens_out,
      tokensSaved(e),
      projectedTokensSaved(e),
      e.recalls,
    ];
    return { append, tenant: this.indexArgs(key.tenant, tag, e.at, counts), all: this.indexArgs(null, tag, e.at, counts) };
  }

  /** Deletes the events and entries of conversations that left their tenant's index, and takes them out of the index of all. */
  private async drop(tags: string[]): Promise<void> {
    // Each conversation's keys live in its own slot: one DEL per conversation (a cluster spreads them).
    await Promise.all([
      ...tags.map((tag) => this.client.del(this.key(`{${tag}}:ev`), this.key(`{${tag}}:entry`))),
      this.client.zrem(this.key(`{${tenantScope(null)}}:conversations`), ...tags),
    ]);
  }

  async events(key: ConversationKey, page: { before?: string; limit: number }): Promise<Page<StoredEvent>> {
    const stream = this.key(`{${conversationTag(key)}}:ev`);
    return this.options.run('read_events', async () => {
      const rows = await this.readable('event', [], () => this.client.xrevrange(stream, page.before === undefined ? '+' : `(${page.before}`, '-', 'COUNT', page.limit + 1));
      const items: StoredEvent[] = [];
      for (const [id, fields] of rows.slice(0, page.limit)) {
        const event = parseEvent(fields);
        if (event) items.push({ id, event });
        else this.options.onUnreadable?.('event');
      }
      // The cursor is the last row read, readable or not, so that a page of garbage still moves on.
      return { items, next: rows.length > page.limit ? rows[page.limit - 1]![0] : null };
    });
  }

  async entry(key: ConversationKey): Promise<ConversationEntry | null> {
    const tag = conversationTag(key);
    return this.options.run('read_entry', () => this.readEntry(tag));
  }

  async conversations(tenant: string | null, page: { after?: string; limit: number }): Promise<Page<ConversationEntry>> {
    const index = this.key(`{${tenantScope(tenant)}}:conversations`);
    const cursor = page.after === undefined ? null : parseListingCursor(page.after);
    return this.options.run('list_conversations', async () => {
      const rows = await this.client.recapEventPage(index, cursor ? String(cursor.score) : '+inf', cursor?.tag ?? '', page.limit + 1);
      const tags: string[] = [];
      for (let i = 0; i < rows.length; i += 2) tags.push(rows[i]!);
      // Each entry lives in its own conversation's slot: read one by one (a cluster spreads them).
      const found = await Promise.all(
        tags.map((tag) => {
          if (TAG.test(tag)) return this.readEntry(tag);
          this.options.onUnreadable?.('index_member');
          return null;
        }),
      );
      // An entry can expire a moment before the index drops it: the listing skips it.
      const entries = found.filter((e): e is ConversationEntry => e !== null);
      const items = entries.slice(0, page.limit);
      return { items, next: tags.length > page.limit && items.length > 0 ? listingCursor(items.at(-1)!) : null };
    });
  }

  async addCounts(tenant: string, at: number, counts: Record<string, number>): Promise<void> {
    tenantScope(tenant);
    const pairs = Object.entries(counts).flat();
    if (pairs.length === 0) return;
    await this.options.run('add_counts', async () => {
      await Promise.all([this.client.recapEventIndex(...this.indexArgs(tenant, '', at, pairs)), this.client.recapEventIndex(...this.indexArgs(null, '', at, pairs))]);
    });
  }

  async counts(tenant: string | null, resolution: Resolution, from: number, to: number): Promise<StatsBucket[]> {
    const starts: number[] = [];
    for (let at = bucketStart(from, resolution); at <= to; at += BUCKET_MS[resolution]) starts.push(at);
    const s = tenantScope(tenant);
    return this.options.run('read_counts', async () => {
      // One scope's buckets share its hash tag: one pipeline, one node.
      const pipeline = this.client.pipeline();
      for (const at of starts) pipeline.hgetall(this.bucketKey(s, resolution, at));
      const replies = (await pipeline.exec()) ?? [];
      const out: StatsBucket[] = [];
      replies.forEach(([err, fields], i) => {
        if (err) throw err;
        const entries = Object.entries(fields as Record<string, string>);
        if (entries.length > 0) out.push({ at: starts[i]!, counts: Object.fromEntries(entries.map(([k, v]) => [k, Number(v)])) });
      });
      return out;
    });
  }

  async forget(key: ConversationKey): Promise<boolean> {
    const tag = conversationTag(key);
    return this.options.run('forget_events', async () => {
      const [removed] = await Promise.all([
        this.client.del(this.key(`{${tag}}:ev`), this.key(`{${tag}}:entry`)),
        this.client.recapEventUnindex(this.key(`{${key.tenant}}:conversations`), this.key(`{${key.tenant}}:event-counts`), tag),
        this.client.zrem(this.key(`{${tenantScope(null)}}:conversations`), tag),
      ]);
      return removed > 0;
    });
  }

  async recordError(error: ErrorEntry): Promise<void> {
    const json = JSON.stringify(error);
    await this.options.run('record_error', async () => {
      // Two lists in two slots (the tenant's tag, `{*}`): one small transaction each.
      await Promise.all(
        [tenantScope(error.tenant), tenantScope(null)].map((s) => {
          const list = this.key(`{${s}}:errors`);
          return this.client
            .multi()
            .lpush(list, json)
            .ltrim(list, 0, ERRORS_KEPT - 1)
            .pexpire(list, this.options.ttlMs)
            .exec();
        }),
      );
    });
  }

  async errors(tenant: string | null, limit: number): Promise<ErrorEntry[]> {
    const list = this.key(`{${tenantScope(tenant)}}:errors`);
    return this.options.run('read_errors', async () => {
      const rows = await this.readable('event', [], () => this.client.lrange(list, 0, Math.min(limit, ERRORS_KEPT) - 1));
      const out: ErrorEntry[] = [];
      for (const row of rows) {
        let parsed: ErrorEntry | null = null;
        try {
          parsed = parseErrorEntry(JSON.parse(row));
        } catch {
          parsed = null;
        }
        if (parsed) out.push(parsed);
        else this.options.onUnreadable?.('event');
      }
      return out;
    });
  }

  /** A tenant's index is bounded and returns what left it; the index of all (tenant null) holds what the tenants' hold. */
  private indexArgs(tenant: string | null, member: string, at: number, pairs: (string | number)[]): Parameters<EventScripts['recapEventIndex']> {
    const s = tenantScope(tenant);
    const { ttlMs, conversations, perConversation, perTenant } = this.options;
    const bounded = tenant !== null;
    return [
      this.key(`{${s}}:conversations`),
      this.bucketKey(s, 'minute', bucketStart(at, 'minute')),
      this.bucketKey(s, 'hour', bucketStart(at, 'hour')),
      this.key(`{${s}}:event-counts`),
      member,
      at,
      ttlMs,
      bounded ? conversations : 0,
      MINUTE_BUCKETS_KEPT_MS,
      ttlMs,
      perConversation,
      bounded ? perTenant : 0,
      ...pairs,
    ];
  }

  private async readEntry(tag: string): Promise<ConversationEntry | null> {
    const fields = await this.readable('entry', {}, () => this.client.hgetall(this.key(`{${tag}}:entry`)));
    if (fields.last === undefined) return null;
    const entry = parseEntry(tag, fields);
    if (entry === null) this.options.onUnreadable?.('entry');
    return entry;
  }

  /** A read whose key holds another type than recap writes there (WRONGTYPE) is unreadable, not an outage. */
  private async readable<T>(kind: UnreadableKind, none: T, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof ReplyError) || !String((err as Error).message).startsWith('WRONGTYPE')) throw err;
      this.options.onUnreadable?.(kind);
      return none;
    }
  }

  private bucketKey(s: string, resolution: Resolution, at: number): string {
    return this.key(`{${s}}:counts:${resolution}:${at}`);
  }

  private key(rest: string): string {
    return `${this.options.keyPrefix}:${rest}`;
  }
}

/** A conversation tag as recap writes index members: two base64url hashes. */
const TAG = /^[A-Za-z0-9_-]{1,256}\.[A-Za-z0-9_-]{1,256}$/;
/** Times a Date can show (the listing prints them as ISO text). */
const MAX_TIME_MS = 8.64e15;

/** A whole number (a count, a time) as the scripts write it; null when the field holds anything else. */
function whole(text: string | undefined, fallback: number): number | null {
  if (text === undefined) return fallback;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** An entry hash as the scripts write it; null when any field is not what they write. */
function parseEntry(tag: string, h: Record<string, string>): ConversationEntry | null {
  const last = whole(h.last, 0);
  const numbers = [whole(h.first, last ?? 0), whole(h.requests, 0), whole(h.in, 0), whole(h.out, 0), whole(h.saved, 0), whole(h.projected, 0), whole(h.recalls, 0)];
  if (last === null || Math.abs(last) > MAX_TIME_MS || numbers.some((n) => n === null) || Math.abs(numbers[0]!) > MAX_TIME_MS) return null;
  const [first, requests, tokensIn, tokensOut, saved, projected, recalls] = numbers as number[];
  const dot = tag.indexOf('.');
  return {
    tenant: tag.slice(0, dot),
    conversation: tag.slice(dot + 1),
    id: h.id ?? null,
    route: h.route ?? '',
    model: h.model ?? '',
    first_seen: first!,
    last_seen: last,
    requests: requests!,
    tokens_in: tokensIn!,
    tokens_out: tokensOut!,
    tokens_saved: saved!,
    projected_tokens_saved: projected!,
    last_action: h.action ?? '',
    last_audit: h.audit ? h.audit : null,
    recalls: recalls!,
  };
}

/** A stream entry's fields (['e', event JSON]) as an event; null when they are anything else. */
function parseEvent(fields: string[]): ConversationEvent | null {
  if (fields.length !== 2 || fields[0] !== 'e') return null;
  let value: unknown;
  try {
    value = JSON.parse(fields[1]!);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const e = value as Partial<ConversationEvent>;
  const at = e.at;
  if (typeof at !== 'number' || !Number.isFinite(at) || Math.abs(at) > MAX_TIME_MS || typeof e.route !== 'string' || typeof e.action !== 'string') return null;
  return e as ConversationEvent;
}
