import { errors } from '../errors.js';
import type { ConversationEntry, EventLog, StoredEvent } from '../store/event-log.js';
import { EVENT_ID, parseListingCursor } from '../store/event-log.js';
import { type ConversationKey, StoreUnavailableError } from '../store/store.js';
import { overviewOf, RANGES, type RangeName } from './overview.js';

// GET /recap/v1/conversations, …/{id}/events and /recap/v1/overview: what the event log holds,
// as JSON for the API and the dashboard. A tenant's view shows its own conversations; the admin's
// shows every tenant's, each named by its configured client's name or else by its keyed hash.

export interface ListingContext {
  events: EventLog;
  /** Tenant hash → configured client name. */
  clientNames: ReadonlyMap<string, string>;
  /** Model label → compaction mode (`enforce`, `audit`), for the configured models. */
  modes: ReadonlyMap<string, string>;
}

async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw errors.storeUnavailable();
    throw err;
  }
}

function limitOf(text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) throw errors.invalidRequest(`limit must be an integer from 1 to ${max}.`, 'limit');
  return n;
}

const iso = (ms: number) => new Date(ms).toISOString();

function entryView(ctx: ListingContext, e: ConversationEntry, admin: boolean) {
  return {
    id: e.id,
    conversation: e.conversation,
    ...(admin ? { tenant: e.tenant, client: ctx.clientNames.get(e.tenant) ?? null } : {}),
    route: e.route,
    model: e.model,
    first_seen: iso(e.first_seen),
    last_seen: iso(e.last_seen),
    requests: e.requests,
    tokens_in: e.tokens_in,
    tokens_out: e.tokens_out,
    tokens_saved: e.tokens_saved,
    projected_tokens_saved: e.projected_tokens_saved,
    last_action: e.last_action,
    last_audit: e.last_audit,
  };
}

function eventView({ id, event }: StoredEvent) {
  return { event_id: id, ...event, at: iso(event.at) };
}

export async function listConversations(ctx: ListingContext, tenant: string | null, admin: boolean, q: { cursor?: string; limit?: string }) {
  const limit = limitOf(q.limit, 50, 200);
  if (q.cursor !== undefined && parseListingCursor(q.cursor) === null) throw errors.invalidRequest('cursor is not one this listing gave.', 'cursor');
  const page = await guarded(() => ctx.events.conversations(tenant, { after: q.cursor, limit }));
  return { conversations: page.items.map((e) => entryView(ctx, e, admin)), next_cursor: page.next };
}

export async function conversationEvents(ctx: ListingContext, key: ConversationKey, admin: boolean, q: { cursor?: string; limit?: string }) {
  const limit = limitOf(q.limit, 100, 500);
  if (q.cursor !== undefined && !EVENT_ID.test(q.cursor)) throw errors.invalidRequest('cursor is not one this listing gave.', 'cursor');
  const [entry, page] = await guarded(() => Promise.all([ctx.events.entry(key), ctx.events.events(key, { before: q.cursor, limit })]));
  if (!entry && page.items.length === 0) throw errors.notFound('Conversation');
  return { conversation: entry ? entryView(ctx, entry, admin) : null, events: page.items.map(eventView), next_cursor: page.next };
}

export async function overview(ctx: ListingContext, tenant: string | null, q: { range?: string }) {
  const range = (q.range ?? '24h') as RangeName;
  if (!Object.hasOwn(RANGES, range)) throw errors.invalidRequest(`range must be one of ${Object.keys(RANGES).join(', ')}.`, 'range');
  const { ms, resolution } = RANGES[range];
  const to = Date.now();
  const buckets = await guarded(() => ctx.events.counts(tenant, resolution, to - ms, to));
  const figures = overviewOf(buckets, resolution);
  const models = Object.keys(figures.totals).map((model) => ({ model, mode: ctx.modes.get(model) ?? null, ...figures.totals[model]! }));
  return { range, from: iso(to - ms), to: iso(to), bucket_seconds: figures.bucket_seconds, models, buckets: figures.buckets };
}
