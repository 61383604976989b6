import { errors } from '../errors.js';
import type { ConversationEntry, EventLog, StoredEvent } from '../store/event-log.js';
import { EVENT_ID, listingCursor, parseListingCursor } from '../store/event-log.js';
import { type ConversationKey, StoreUnavailableError } from '../store/store.js';
import type { Resolution } from '../store/event-log.js';
import { figuresView, MAX_RANGE_MS, overviewOf, RANGES, type RangeName, resolutionFor, sumFigures } from './overview.js';

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

export async function guarded<T>(work: () => Promise<T>): Promise<T> {
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
    recalls: e.recalls,
  };
}

function eventView({ id, event }: StoredEvent) {
  return { event_id: id, ...event, at: iso(event.at) };
}

export interface ListingQuery {
  cursor?: string | undefined;
  limit?: string | undefined;
  /** Part of the conversation's id (as the client sent it) or of its hash, any case. */
  q?: string | undefined;
  model?: string | undefined;
  route?: string | undefined;
  /** The last request's action (or, for an audited model, its x-recap-audit). */
  action?: string | undefined;
  /** Last seen within [from, to], ISO times or ms. */
  from?: string | undefined;
  to?: string | undefined;
}

// A filtered listing reads the index page by page until it has a page of matches or has read
// this many entries; its cursor then continues the scan where it stopped.
const SCAN_MAX = 2_000;
const SCAN_PAGE = 200;

function timeOf(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  const ms = /^\d{1,16}$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms)) throw errors.invalidRequest(`${name} must be an ISO time or ms since the epoch.`, name);
  return ms;
}

function matcher(q: ListingQuery): ((e: ConversationEntry) => boolean) | null {
  const text = q.q?.trim().toLowerCase();
  const from = timeOf(q.from, 'from');
  const to = timeOf(q.to, 'to');
  if (!text && !q.model && !q.route && !q.action && from === undefined && to === undefined) return null;
  return (e) =>
    (!text || (e.id ?? '').toLowerCase().includes(text) || e.conversation.toLowerCase().includes(text)) &&
    (!q.model || e.model === q.model) &&
    (!q.route || e.route === q.route) &&
    (!q.action || e.last_action === q.action || e.last_audit === q.action) &&
    (from === undefined || e.last_seen >= from) &&
    (to === undefined || e.last_seen <= to);
}

/**
 * A page of the tenant's (or, null, every tenant's) conversations, newest first, those that match
 * the query's filters; `exact` finds a conversation by its whole id even past what the scan reads.
 */
export async function listConversations(ctx: ListingContext, tenant: string | null, admin: boolean, q: ListingQuery, exact?: (id: string) => ConversationKey[]) {
  const limit = limitOf(q.limit, 50, 200);
  if (q.cursor !== undefined && parseListingCursor(q.cursor) === null) throw errors.invalidRequest('cursor is not one this listing gave.', 'cursor');
  const matches = matcher(q);
  if (!matches) {
    const page = await guarded(() => ctx.events.conversations(tenant, { after: q.cursor, limit }));
    return { conversations: page.items.map((e) => entryView(ctx, e, admin)), next_cursor: page.next };
  }
  const found: ConversationEntry[] = [];
  if (q.cursor === undefined && q.q && exact) {
    const entries = await guarded(() => Promise.all(exact(q.q!.trim()).map((key) => ctx.events.entry(key))));
    for (const e of entries) if (e && matches(e)) found.push(e);
  }
  let after = q.cursor;
  let scanned = 0;
  let next: string | null = null;
  while (found.length < limit && scanned < SCAN_MAX) {
    const page = await guarded(() => ctx.events.conversations(tenant, { after, limit: SCAN_PAGE }));
    let taken = 0;
    for (const e of page.items) {
      taken++;
      if (!found.some((f) => f.tenant === e.tenant && f.conversation === e.conversation) && matches(e)) found.push(e);
      if (found.length === limit) break;
    }
    scanned += taken;
    const last = page.items[taken - 1];
    const more = taken < page.items.length || page.next !== null;
    next = more && last ? listingCursor(last) : null;
    if (!next) break;
    after = next;
  }
  return { conversations: found.map((e) => entryView(ctx, e, admin)), next_cursor: next, scanned };
}

export async function conversationEvents(ctx: ListingContext, key: ConversationKey, admin: boolean, q: { cursor?: string; limit?: string }) {
  const limit = limitOf(q.limit, 100, 500);
  if (q.cursor !== undefined && !EVENT_ID.test(q.cursor)) throw errors.invalidRequest('cursor is not one this listing gave.', 'cursor');
  const [entry, page] = await guarded(() => Promise.all([ctx.events.entry(key), ctx.events.events(key, { before: q.cursor, limit })]));
  if (!entry && page.items.length === 0) throw errors.notFound('Conversation');
  return { conversation: entry ? entryView(ctx, entry, admin) : null, events: page.items.map(eventView), next_cursor: page.next };
}

export interface OverviewQuery {
  /** One of RANGES, or a custom [from, to]. */
  range?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** The time range an overview covers, and the buckets it reads. */
function rangeOf(q: OverviewQuery, now: number): { name: string; from: number; to: number; resolution: Resolution } {
  if (q.from !== undefined || q.to !== undefined) {
    const to = Math.min(timeOf(q.to, 'to') ?? now, now);
    const from = timeOf(q.from, 'from') ?? to - RANGES['24h'];
    if (from >= to) throw errors.invalidRequest('from must be before to.', 'from');
    if (to - from > MAX_RANGE_MS) throw errors.invalidRequest(`a range is at most ${MAX_RANGE_MS / 86_400_000} days.`, 'from');
    return { name: 'custom', from, to, resolution: resolutionFor(from, to, now) };
  }
  const name = (q.range ?? '24h') as RangeName;
  if (!Object.hasOwn(RANGES, name)) throw errors.invalidRequest(`range must be one of ${Object.keys(RANGES).join(', ')}, or give from and to.`, 'range');
  const from = now - RANGES[name];
  return { name, from, to: now, resolution: resolutionFor(from, now, now) };
}

/** Things the operator should know that no count shows (the anonymous callers whose records are not kept, say). */
export type Notices = () => string[];

export async function overview(ctx: ListingContext, tenant: string | null, q: OverviewQuery, notices: Notices = () => []) {
  const range = rangeOf(q, Date.now());
  const [buckets, errorList] = await guarded(() => Promise.all([ctx.events.counts(tenant, range.resolution, range.from, range.to), ctx.events.errors(tenant, 50)]));
  const figures = overviewOf(buckets, range.resolution);
  const models = Object.keys(figures.totals).map((model) => ({ model, mode: ctx.modes.get(model) ?? null, ...figuresView(figures.totals[model]!) }));
  const routes = Object.keys(figures.routes).map((route) => ({ route, ...figuresView(figures.routes[route]!) }));
  const total = figuresView(sumFigures(Object.values(figures.totals)));
  return {
    range: range.name,
    from: iso(range.from),
    to: iso(range.to),
    bucket_seconds: figures.bucket_seconds,
    total,
    models,
    routes,
    errors: errorList
      .filter((e) => e.at >= range.from && e.at <= range.to)
      .map((e) => ({ ...e, at: iso(e.at), ...(tenant === null ? { client: ctx.clientNames.get(e.tenant) ?? null } : {}) })),
    notices: notices(),
    buckets: figures.buckets.map((b) => ({ at: b.at, models: Object.fromEntries(Object.entries(b.models).map(([m, f]) => [m, figuresView(f)])) })),
  };
}
