import { LRUCache } from 'lru-cache';
import type { EventLimits } from './event-log.js';

// The in-memory store's per-tenant bounds on events (redis-event-scripts.ts INDEX_AND_COUNT keeps
// the same on Redis): per tenant, its conversations in the order they were last written and how
// many events each keeps; past the bound on conversations or on events, the least recently
// written conversations go.

interface TenantIndex {
  /** Conversation tag → events kept, least recently written first (a Map keeps insertion order). */
  conversations: Map<string, number>;
  events: number;
}

export class TenantEventBounds {
  private readonly tenants: LRUCache<string, TenantIndex>;

  constructor(
    private readonly limits: Pick<EventLimits, 'perConversation' | 'conversations' | 'perTenant'>,
    maxTenants: number,
  ) {
    this.tenants = new LRUCache({ max: maxTenants });
  }

  /** One more event of `tag`; returns the tags that left the tenant's bounds (never `tag` itself). */
  add(tenant: string, tag: string): string[] {
    const index = this.tenants.get(tenant) ?? { conversations: new Map<string, number>(), events: 0 };
    this.tenants.set(tenant, index);
    const kept = index.conversations.get(tag) ?? 0;
    index.conversations.delete(tag);
    index.conversations.set(tag, Math.min(kept + 1, this.limits.perConversation));
    if (kept < this.limits.perConversation) index.events++;
    const evicted: string[] = [];
    for (const [oldest, events] of index.conversations) {
      if (index.conversations.size <= this.limits.conversations && index.events <= this.limits.perTenant) break;
      if (oldest === tag) break;
      index.conversations.delete(oldest);
      index.events -= events;
      evicted.push(oldest);
    }
    return evicted;
  }

  remove(tenant: string, tag: string): void {
    const index = this.tenants.get(tenant);
    const events = index?.conversations.get(tag);
    if (index === undefined || events === undefined) return;
    index.conversations.delete(tag);
    index.events -= events;
  }

  clear(): void {
    this.tenants.clear();
  }
}
