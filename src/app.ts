import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { createChatHandler } from './chat/handler.js';
import { passthrough } from './chat/passthrough.js';
import { newRequestLog, type RequestLog } from './chat/request-log.js';
import type { AppDeps } from './deps.js';
import { RecapError, errorBody, errors } from './errors.js';
import { describeConversation, inspectionKey } from './inspect.js';
import { traceRequest } from './tracing/spans.js';

type Env = { Bindings: HttpBindings };

export const CHAT_PATH = '/v1/chat/completions';

/** Whether a request is for the chat route, the one whose body recap reads (and limits). */
export function isChatRoute(req: IncomingMessage): boolean {
  return req.method === 'POST' && (req.url ?? '').split('?')[0] === CHAT_PATH;
}

function jsonError(err: RecapError): Response {
  return new Response(errorBody(err), { status: err.status, headers: { 'content-type': 'application/json' } });
}

export interface RecapApp {
  hono: Hono<Env>;
  /**
   * The chat route, outside the router: the server hands it chat requests (isChatRoute) directly,
   * sparing the busiest route the framework's per-request work.
   */
  serveChat(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** Routes only; no I/O happens at import or construction. */
export function createApp(deps: AppDeps): RecapApp {
  const app = new Hono<Env>();
  const chat = createChatHandler(deps);
  const stripHeaders = [deps.config.server.conversation_header];

  const finish = (log: RequestLog, status: number) => {
    log.status = status;
    deps.metrics.requests.inc({ route: log.route, model: log.modelLabel ?? '', status: String(status) });
    deps.metrics.requestDuration.observe({ route: log.route }, (performance.now() - log.startedAt) / 1000);
    deps.logger.info({ ...log, durationMs: Math.round((performance.now() - log.startedAt) * 100) / 100 }, 'request');
  };

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const r = await deps.readiness();
    return c.json({ status: r.ready ? 'ready' : 'not_ready', store: r.store }, r.ready ? 200 : 503);
  });

  app.get('/metrics', async function metricsRoute(c) {
    return c.body(await (deps.metricsText?.() ?? deps.metrics.registry.metrics()), 200, { 'content-type': deps.metrics.registry.contentType });
  });

  const inspection = { secret: deps.secret, adminToken: deps.config.server.admin_token };
  app.get('/recap/v1/conversations/:id', async function inspectConversation(c) {
    const id = c.req.param('id');
    const key = inspectionKey(c.env.incoming.headers, id, c.req.query('tenant'), inspection);
    return c.json(await describeConversation(deps.records, key, id));
  });
  app.delete('/recap/v1/conversations/:id', async function forgetConversation(c) {
    const id = c.req.param('id');
    const key = inspectionKey(c.env.incoming.headers, id, c.req.query('tenant'), inspection);
    const existed = await deps.records.forget(key);
    if (existed === 'unavailable') throw errors.storeUnavailable();
    if (!existed) throw errors.notFound('Conversation');
    return c.json({ id, deleted: true });
  });

  async function serveChat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const log = newRequestLog('POST', CHAT_PATH);
    // Several layers rightly watch one response's 'close' (server adapter, shutdown tracking,
    // client-abort signal, stream pipeline); past ten Node would warn of a leak that is not one.
    res.setMaxListeners(32);
    await traceRequest(log, req, res, () => chat(req, res, log));
    finish(log, res.statusCode);
  }

  // Chat requests the server did not hand over directly: an absolute-form target, say.
  app.post(CHAT_PATH, async function chatRoute(c) {
    await serveChat(c.env.incoming, c.env.outgoing);
    return RESPONSE_ALREADY_SENT;
  });

  app.all('/v1/*', async function passthroughRoute(c) {
    const { incoming, outgoing } = c.env;
    outgoing.setMaxListeners(32);
    const log = newRequestLog(incoming.method ?? 'GET', c.req.routePath);
    const upstream = deps.upstreams.get(deps.defaultUpstream)!;
    await traceRequest(log, incoming, outgoing, () => passthrough(incoming, outgoing, upstream, { stripHeaders, clientStallMs: deps.config.server.client_stall_ms }));
    finish(log, outgoing.statusCode);
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
  return { hono: app, serveChat };
}
