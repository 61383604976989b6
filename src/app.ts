import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono, type Next } from 'hono';
import { authenticate, type Caller, type DoorPolicy, isAnthropicPath } from './auth/caller.js';
import { createClientKeys } from './auth/client-keys.js';
import { checkModelOfBody, type GatedBody } from './auth/model-gate.js';
import { errorBody, errors, RecapError, sendError } from './errors.js';
import { anthropicTarget, isAnthropicRequest } from './http/anthropic-passthrough.js';
import { createCompactingHandler } from './pipeline/compacting-handler.js';
import { passthrough } from './http/passthrough.js';
import { registerRecapApi } from './inspect/routes.js';
import { admitViewer } from './inspect/viewer.js';
import { createAnonymousNotice } from './observability/anonymous-notice.js';
import { keepsRecords, tenantOfCaller } from './conversation/identify.js';
import type { RequestTenant } from './events/recorder.js';
import { passthroughRouteName } from './http/passthrough-route.js';
import { type RequestOutcome, recordOutcome } from './observability/outcome.js';
import { newRequestLog } from './observability/request-log.js';
import type { AppDeps } from './runtime/deps.js';
import { traceRequest } from './tracing/spans.js';
import { registerDashboard } from './ui/routes.js';
import type { AnyWireFormat } from './wire/format.js';
import { messagesErrorBody } from './wire/messages/errors.js';
import { WIRE_FORMATS } from './wire/formats.js';

type Env = { Bindings: HttpBindings };

/** The wire format a request is for (the routes whose body recap reads, and limits), or null. */
export function compactingRouteOf(req: IncomingMessage): AnyWireFormat | null {
  if (req.method !== 'POST') return null;
  const path = (req.url ?? '').split('?')[0];
  return WIRE_FORMATS.find((f) => f.path === path) ?? null;
}

// RFC 9110 §11.6.1: a 401 names the scheme the client should use.
const challenge = (err: RecapError): Record<string, string> => (err.status === 401 ? { 'www-authenticate': 'Bearer realm="recap"' } : {});

function jsonError(err: RecapError): Response {
  return new Response(errorBody(err), { status: err.status, headers: { 'content-type': 'application/json', ...challenge(err) } });
}

export interface RecapApp {
  hono: Hono<Env>;
  /**
   * The compacting routes, outside the router: the server hands their requests (compactingRouteOf)
   * directly, sparing the busiest routes the framework's per-request work.
   */
  serveCompacting(format: AnyWireFormat, req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** Routes only; no I/O happens at import or construction. */
export function createApp(deps: AppDeps): RecapApp {
  const app = new Hono<Env>();
  const handlers = new Map(WIRE_FORMATS.map((format) => [format, createCompactingHandler(deps, format)]));
  const stripHeaders = deps.config.server.conversation_header.slice(0, 1);
  const door: DoorPolicy = {
    keys: deps.config.clients ? createClientKeys(deps.config.clients) : undefined,
    anonymous: deps.config.server.anonymous,
  };

  const anonymous = createAnonymousNotice(deps.logger);
  /** Whose counts a request without a conversation adds to: its caller's tenant, when its records are kept. */
  const ownerOf = (caller: Caller | undefined): RequestTenant | undefined =>
    caller && keepsRecords(caller) ? { tenant: tenantOfCaller(caller, deps.secret), vouched: caller.kind !== 'credential' } : undefined;

  // The request is over: its log line, metrics and event, from the outcome it returned (observability/outcome.ts).
  const finish = (outcome: RequestOutcome, status: number, caller?: Caller) => {
    const done = recordOutcome(deps, outcome, status, { client: caller?.kind === 'client' ? caller.client.name : undefined, owner: ownerOf(caller) });
    if (caller?.kind === 'anonymous' && !caller.shared) anonymous.observe(done);
  };

  // Every /v1/* request is decided at the door first, once, by the route that serves it (a caller
  // refused there, clients configured and no valid key, gets recap's 401 before its body is read,
  // forwarded or counted); the caller is then a value passed down. /recap/v1/* has its own door,
  // where the admin token counts too.
  const enter = (req: IncomingMessage, res: ServerResponse, opened: RequestOutcome, shape?: (err: RecapError) => string): Caller | undefined => {
    try {
      return authenticate(req.headers, door, isAnthropicPath(req.url));
    } catch (err) {
      if (!(err instanceof RecapError)) throw err;
      sendError(res, err, challenge(err), shape);
      finish({ ...opened, error: err.code }, res.statusCode);
      return undefined;
    }
  };
  const viewerPolicy = { door, adminToken: deps.config.server.admin_token, secret: deps.secret };
  app.use('/recap/v1/*', async function authenticateViewer(c: Context<Env>, next: Next) {
    try {
      admitViewer(c.env.incoming, viewerPolicy);
    } catch (err) {
      if (!(err instanceof RecapError)) throw err;
      finish({ ...newRequestLog(c.req.method, c.req.routePath), error: err.code }, err.status);
      return jsonError(err);
    }
    await next();
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const r = await deps.readiness();
    return c.json({ status: r.ready ? 'ready' : 'not_ready', store: r.store }, r.ready ? 200 : 503);
  });

  app.get('/metrics', async function metricsRoute(c) {
    return c.body(await (deps.metricsText?.() ?? deps.metrics.registry.metrics()), 200, { 'content-type': deps.metrics.registry.contentType });
  });

  registerRecapApi(app, deps, { viewers: viewerPolicy, notices: () => anonymous.lines() });
  registerDashboard(app);

  async function serveCompacting(format: AnyWireFormat, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const opened: RequestOutcome = { ...newRequestLog('POST', format.path), routeName: format.items.route };
    // Several layers rightly watch one response's 'close' (server adapter, shutdown tracking,
    // client-abort signal, stream pipeline); past ten Node would warn of a leak that is not one.
    res.setMaxListeners(32);
    const caller = enter(req, res, opened, format.errorBody);
    if (!caller) return;
    const outcome = await traceRequest(opened, req, res, () => handlers.get(format)!(req, res, opened, caller));
    finish(outcome, res.statusCode, caller);
  }

  // Requests the server did not hand over directly: an absolute-form target, say.
  for (const format of WIRE_FORMATS) {
    app.post(format.path, async function compactingRoute(c) {
      await serveCompacting(format, c.env.incoming, c.env.outgoing);
      return RESPONSE_ALREADY_SENT;
    });
  }

  const anthropicRouting = {
    upstreams: deps.upstreams,
    upstreamConfigs: deps.config.upstreams,
    defaultUpstream: deps.defaultUpstream,
    routeModel: deps.routeModel,
    bodyLimit: deps.config.server.body_limit_bytes,
  };
  app.all('/v1/*', async function passthroughRoute(c) {
    const { incoming, outgoing } = c.env;
    outgoing.setMaxListeners(32);
    const arrived = newRequestLog(incoming.method ?? 'GET', c.req.routePath);
    const anthropic = isAnthropicRequest(incoming);
    const errorShape = anthropic ? messagesErrorBody : undefined;
    const caller = enter(incoming, outgoing, arrived, errorShape);
    if (!caller) return RESPONSE_ALREADY_SENT;
    const opened: RequestOutcome = { ...arrived, routeName: passthroughRouteName(incoming.url ?? '') };
    let upstream = deps.upstreams.get(deps.defaultUpstream)!;
    let body: GatedBody | undefined;
    try {
      body = await checkModelOfBody(incoming, caller, deps.config.server.body_limit_bytes);
      if (anthropic) ({ upstream, body } = await anthropicTarget(anthropicRouting, incoming, body));
    } catch (err) {
      if (!(err instanceof RecapError)) throw err;
      sendError(outgoing, err, {}, errorShape);
      finish({ ...opened, error: err.code }, outgoing.statusCode, caller);
      return RESPONSE_ALREADY_SENT;
    }
    const outcome = await traceRequest(opened, incoming, outgoing, async () => {
      const { answered } = await passthrough(incoming, outgoing, upstream, { stripHeaders, clientStallMs: deps.config.server.client_stall_ms, body, errorBody: errorShape });
      // What the upstream answered (recap's own failure to reach it is no answer): it judges a caller's credential.
      return answered === undefined ? opened : { ...opened, upstreamStatus: answered };
    });
    finish(outcome, outgoing.statusCode, caller);
    return RESPONSE_ALREADY_SENT;
  });

  app.notFound(function notFound(c) {
    return jsonError(errors.notFound(`Route ${c.req.method} ${c.req.path}`));
  });
  app.onError(function onError(err) {
    if (err instanceof RecapError) return jsonError(err);
    deps.logger.error({ err }, 'unhandled error');
    return jsonError(errors.internal());
  });
  return { hono: app, serveCompacting };
}
