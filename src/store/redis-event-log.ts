import type { Cluster, Redis } from 'ioredis';
import { conversationTag } from './conversation-tag.js';
import { eventCounts, projectedTokensSaved, tokensSaved } from './event-counts.js';
import {
  BUCKET_MS,
  bucketStart,
  type ConversationEntry,
  type ConversationEvent,
  type EventLimits,
  type EventLog,
  listingCursor,
  MINUTE_BUCKETS_KEPT_MS,
  type Page,
  parseListingCursor,
  type Resolution,
  type StatsBucket,
  type StoredEvent,
  tenantScope,
} from './event-log.js';
import { defineEventScripts, type EventScripts } from './redis-event-scripts.js';
import type { ConversationKey } from './store.js';

// The event log on Redis. Per conversation, under its hash tag like its record: a stream of
// events (XADD … MAXLEN) and an entry hash, both with the record's TTL. Per tenant, under the
// tenant's own tag: the index of its conversations (a sorted set by last seen) and the count
// buckets; the same for all tenants together under `{*}`, which no tenant hash can be.

export interface RedisEventLogOptions extends EventLimits {
  keyPrefix: string;
  ttlMs: number;
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
    const tag = conversationTag(key);
    const { ttlMs, perConversation } = this.options;
    const counts = Object.entries(eventCounts(e)).flat();
    await this.options.run('record_event', async () => {
      await Promise.all([
        this.client.recapEventAppend(
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
        ),
        this.index(key.tenant, tag, e.at, counts),
        this.index(null, tag, e.at, counts),
      ]);
    });
  }

  async events(key: ConversationKey, page: { before?: string; limit: number }): Promise<Page<StoredEvent>> {
    const stream = this.key(`{${conversationTag(key)}}:ev`);
    return this.options.run('read_events', async () => {
      const rows = await this.client.xrevrange(stream, page.before === undefined ? '+' : `(${page.before}`, '-', 'COUNT', page.limit + 1);
      const items = rows.slice(0, page.limit).map(([id, fields]) => ({ id, event: JSON.parse(fields[1] ?? 'null') as ConversationEvent }));
      return { items, next: rows.length > page.limit ? items.at(-1)!.id : null };
    });
  }

  async entry(key: ConversationKey): Promise<ConversationEntry | null> {
    const tag = conversationTag(key);
    return this.options.run('read_entry', async () => parseEntry(tag, await this.client.hgetall(this.key(`{${tag}}:entry`))));
  }

  async conversations(tenant: string | null, page: { after?: string; limit: number }): Promise<Page<ConversationEntry>> {
    const index = this.key(`{${tenantScope(tenant)}}:conversations`);
    const cursor = page.after === undefined ? null : parseListingCursor(page.after);
    return this.options.run('list_conversations', async () => {
      const rows = await this.client.recapEventPage(index, cursor ? String(cursor.score) : '+inf', cursor?.tag ?? '', page.limit + 1);
      const tags: string[] = [];
      for (let i = 0; i < rows.length; i += 2) tags.push(rows[i]!);
      // Each entry lives in its own conversation's slot: read one by one (a cluster spreads them).
      const found = await Promise.all(tags.map(async (tag) => parseEntry(tag, await this.client.hgetall(this.key(`{${tag}}:entry`)))));
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
      await Promise.all([this.index(tenant, '', at, pairs), this.index(null, '', at, pairs)]);
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
        this.client.zrem(this.key(`{${key.tenant}}:conversations`), tag),
        this.client.zrem(this.key(`{${tenantScope(null)}}:conversations`), tag),
      ]);
      return removed > 0;
    });
  }

  private index(tenant: string | null, member: string, at: number, pairs: (string | number)[]): Promise<null> {
    const s = tenantScope(tenant);
    const { ttlMs, conversations } = this.options;
    return this.client.recapEventIndex(
      this.key(`{${s}}:conversations`),
      this.bucketKey(s, 'minute', bucketStart(at, 'minute')),
      this.bucketKey(s, 'hour', bucketStart(at, 'hour')),
      member,
      at,
      ttlMs,
      conversations,
      MINUTE_BUCKETS_KEPT_MS,
      ttlMs,
      ...pairs,
    );
  }

  private bucketKey(s: string, resolution: Resolution, at: number): string {
    return this.key(`{${s}}:counts:${resolution}:${at}`);
  }

  private key(rest: string): string {
    return `${this.options.keyPrefix}:${rest}`;
  }
}

function parseEntry(tag: string, h: Record<string, string>): ConversationEntry | null {
  if (h.last === undefined) return null;
  const dot = tag.indexOf('.');
  return {
    tenant: tag.slice(0, dot),
    conversation: tag.slice(dot + 1),
    id: h.id ?? null,
    route: h.route ?? '',
    model: h.model ?? '',
    first_seen: Number(h.first ?? h.last),
    last_seen: Number(h.last),
    requests: Number(h.requests ?? 0),
    tokens_in: Number(h.in ?? 0),
    tokens_out: Number(h.out ?? 0),
    tokens_saved: Number(h.saved ?? 0),
    projected_tokens_saved: Number(h.projected ?? 0),
    last_action: h.action ?? '',
    last_audit: h.audit ? h.audit : null,
  };
}
