import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import { clientTenant } from '../conversation/identify.js';
import { errors } from '../errors.js';
import { auditKey } from '../pipeline/audit.js';
import type { AppDeps } from '../runtime/deps.js';
import { StoreUnavailableError } from '../store/store.js';
import { conversationKey, describeConversation, idFromPath } from './inspect.js';
import { conversationEvents, type ListingContext, listConversations, overview } from './listing.js';
import { tenantsToList, tenantToRead, viewerOf } from './viewer.js';

type Env = { Bindings: HttpBindings };

// recap's own API under /recap/v1 (app.ts admits its callers: viewer.ts). Every route reads one
// tenant's data, or with the admin token every tenant's.

export function listingContext(deps: AppDeps): ListingContext {
  const clientNames = new Map((deps.config.clients ?? []).map((c) => [clientTenant(c.name, deps.secret), c.name]));
  const modes = new Map(deps.config.models.map((m) => [m.match, m.compaction.mode]));
  return { events: deps.records.store.events, clientNames, modes };
}

export function registerRecapApi(app: Hono<Env>, deps: AppDeps): void {
  const ctx = listingContext(deps);
  const { secret } = deps;
  const named = (c: Context<Env>) => ({ tenant: c.req.query('tenant'), client: c.req.query('client') });
  /** The conversation a /recap/v1/conversations/{id}[suffix] request is about, in the tenant it may read. */
  const target = (c: Context<Env>, suffix = '') => {
    const id = idFromPath(new URL(c.req.url).pathname, suffix);
    const key = conversationKey(tenantToRead(viewerOf(c.env.incoming), named(c), secret), { id, by: c.req.query('by'), route: c.req.query('route') }, secret);
    return { id, key };
  };

  app.get('/recap/v1/whoami', function whoami(c) {
    const viewer = viewerOf(c.env.incoming);
    return c.json({ admin: viewer.admin, tenant: viewer.tenant, client: viewer.client ?? null });
  });

  app.get('/recap/v1/conversations', async function listTenantConversations(c) {
    const viewer = viewerOf(c.env.incoming);
    const tenants = tenantsToList(viewer, named(c), secret);
    return c.json(await listConversations(ctx, tenants, viewer.admin, { cursor: c.req.query('cursor'), limit: c.req.query('limit') }));
  });

  app.get('/recap/v1/overview', async function overviewOfTenants(c) {
    return c.json(await overview(ctx, tenantsToList(viewerOf(c.env.incoming), named(c), secret), { range: c.req.query('range') }));
  });

  app.get('/recap/v1/conversations/:id/events', async function listConversationEvents(c) {
    const { key } = target(c, '/events');
    return c.json(await conversationEvents(ctx, key, viewerOf(c.env.incoming).admin, { cursor: c.req.query('cursor'), limit: c.req.query('limit') }));
  });

  app.get('/recap/v1/conversations/:id', async function inspectConversation(c) {
    const { key, id } = target(c);
    return c.json(await describeConversation(deps.records, key, id));
  });

  app.delete('/recap/v1/conversations/:id', async function forgetConversation(c) {
    const { key, id } = target(c);
    // Its record, the checkpoints audit mode projected for it, its events.
    const [existed, audited] = await Promise.all([deps.records.forget(key), deps.records.forget(auditKey(key, secret))]);
    if (existed === 'unavailable' || audited === 'unavailable') throw errors.storeUnavailable();
    const hadEvents = await ctx.events.forget(key).catch((err: unknown) => {
      if (err instanceof StoreUnavailableError) throw errors.storeUnavailable();
      throw err;
    });
    if (!existed && !audited && !hadEvents) throw errors.notFound('Conversation');
    return c.json({ id, deleted: true });
  });
}
