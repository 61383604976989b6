import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { compactingRouteOf, createApp } from './app.js';
import { type Config, createModelResolver, defaultUpstreamName } from './config/config.js';
import { errors, sendError } from './errors.js';
import { answerClientErrors } from './http/client-error.js';
import { drainUnreadBody } from './http/drain-unread.js';
import { answerExpectContinue } from './http/expect-continue.js';
import { trackConnections } from './http/graceful-close.js';
import { serverTimeouts } from './http/server-timeouts.js';
import { createLogger, type Logger } from './observability/logger.js';
import { createUnmatchedModelNotice } from './observability/unmatched-models.js';
import { createRuntime, type Runtime } from './runtime/runtime.js';

export interface RunningRecap {
  url: string;
  port: number;
  runtime: Runtime;
  server: Server;
  close(): Promise<void>;
}

export interface StartOptions {
  port?: number;
  host?: string;
  logger?: Logger;
  /** What GET /metrics answers instead of this process's registry (a cluster worker's). */
  metricsText?: () => Promise<string>;
}

/** Boots recap: builds every dependency, serves, and closes all of it on close(). */
export async function startRecap(config: Config, opts: StartOptions = {}): Promise<RunningRecap> {
  const logger = opts.logger ?? createLogger(config.server.log_level);
  const runtime = await createRuntime(config, logger);
  const resolveModel = createModelResolver(config.models);
  const unmatched = createUnmatchedModelNotice(logger, runtime.metrics);
  const defaultUpstream = defaultUpstreamName(config);
  const app = createApp({
    config,
    logger,
    upstreams: runtime.upstreams,
    defaultUpstream,
    routeModel: (name) => {
      const model = resolveModel(name);
      if (!model) unmatched(name);
      return { model, upstream: model?.upstream ?? defaultUpstream };
    },
    pipeline: runtime.pipeline,
    metrics: runtime.metrics,
    records: runtime.records,
    events: runtime.events,
    seen: runtime.seen,
    tokens: runtime.tokens,
    secret: runtime.secret,
    readiness: runtime.readiness,
    metricsText: opts.metricsText,
  });
  const host = opts.host ?? config.server.host;
  const server = await new Promise<Server>((resolve) => {
    const s = serve(
      {
        fetch: app.hono.fetch,
        port: opts.port ?? config.server.port,
        hostname: host,
        serverOptions: serverTimeouts(config.server),
        createServer: ((options, routed: RequestListener) =>
          createServer(options, (req, res) => {
            const format = compactingRouteOf(req);
            if (format === null) return routed(req, res);
            drainUnreadBody(req, res);
            app.serveCompacting(format, req, res).catch((err: unknown) => {
              logger.error({ err }, 'unhandled error');
              if (!res.headersSent) sendError(res, errors.internal());
              else res.destroy();
            });
          })) as typeof createServer,
      },
      () => resolve(s as Server),
    );
  });
  const connections = trackConnections(server);
  answerClientErrors(server);
  answerExpectContinue(server, (req) => compactingRouteOf(req) !== null && Number(req.headers['content-length']) > config.server.body_limit_bytes);
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shownHost}:${port}`;
  logger.info({ url, store: runtime.storeKind }, 'recap listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Stop accepting, let in-flight requests and streams finish (bounded), then close the rest.
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      connections.drain();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, config.server.shutdown_grace_ms).unref());
      await Promise.race([drained, grace]);
      server.closeAllConnections();
      await runtime.close();
    })());
  return { url, port, runtime, server, close };
}
