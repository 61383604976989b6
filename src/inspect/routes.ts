import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import { clientTenant } from '../conversation/identify.js';
import { errors } from '../errors.js';
import { auditKey } from '../pipeline/audit.js';
import type { AppDeps } from '../runtime/deps.js';
import { StoreUnavailableError } from '../store/store.js';
import { conversationKey, describeConversation, idFromPath } from './inspect.js';
import { conversationEvents, guarded, type ListingContext, listConversations, type Notices, overview } from './listing.js';
import { describeCredential, tenantsToList, tenantToRead, type ViewerPolicy, viewerOf } from './viewer.js';

type Env = { Bindings: HttpBindings };

// recap's own API under /recap/v1 (app.ts admits its callers: viewer.ts). Every route reads one
// tenant's data, or with the admin token every tenant's.

export function listingContext(deps: AppDeps): ListingContext {
  const clientNames = new Map((deps.config.clients ?? []).map((c) => [clientTenant(c.name, deps.secret), c.name]));
  const modes = new Map(deps.config.models.map((m) => [m.match, m.compaction.mode]));
  return { events: deps.records.store.events, clientNames, modes };
}

export function registerRecapApi(app: Hono<Env>, deps: AppDeps, opts: { viewers: ViewerPolicy; notices: Notices }): void {
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
    // A caller with no tenant of its own and no admin token reads nothing: it is not logged in.
    if (!viewer.admin && viewer.tenant === null) throw errors.unauthorized();
    const kind = viewer.admin ? 'admin' : viewer.client !== undefined ? 'client' : 'credential';
    return c.json({ admin: viewer.admin, kind, tenant: viewer.tenant, client: viewer.client ?? null });
  });

  // The dashboard's login: what a value is taken for (sent as both the admin token and a key),
  // answered 200 whatever it is; for a caller's own credential, whether any conversation was made with it.
  app.get('/recap/ui/login', async function describeLogin(c) {
    const described = describeCredential(c.env.incoming, opts.viewers);
    let conversations: boolean | null = null;
    if (described.kind === 'credential') conversations = (await guarded(() => ctx.events.conversations(described.tenant, { limit: 1 }))).items.length > 0;
    return c.json({ ...described, conversations }, 200, { 'cache-control': 'no-store' });
  });

  app.get('/recap/v1/conversations', async function listTenantConversations(c) {
    const viewer = viewerOf(c.env.incoming);
    const n = named(c);
    const tenants = tenantsToList(viewer, n, secret);
    const q = c.req.query();
    // An exact id is looked up in the tenant it belongs to: the caller's own, or the one the admin names.
    const exact = tenants === null ? undefined : (id: string) => (['chat', 'responses', 'messages'] as const).map((route) => conversationKey(tenants, { id, route }, secret));
    return c.json(
      await listConversations(
        ctx,
        tenants,
        viewer.admin,
        { cursor: q.cursor, limit: q.limit, q: q.q, model: q.model, route: q.route, action: q.action, from: q.from, to: q.to },
        exact,
      ),
    );
  });

  app.get('/recap/v1/overview', async function overviewOfTenants(c) {
    const q = c.req.query();
    return c.json(await overview(ctx, tenantsToList(viewerOf(c.env.incoming), named(c), secret), { range: q.range, from: q.from, to: q.to }, opts.notices));
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
