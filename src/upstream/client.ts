import type { Readable } from 'node:stream';
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import type { Config, UpstreamConfig } from '../config/config.js';
import { RecapError, errors } from '../errors.js';
import { traceUpstream } from '../tracing/spans.js';

// One keep-alive pool per upstream. Timeouts come from config: undici's 300 s defaults would cut
// long generations (headers) or long pauses between streamed tokens (body).

export interface UpstreamRequest {
  method: string;
  /** Path below the upstream's base URL, starting with `/` (the client's path minus `/v1`). */
  path: string;
  headers: Record<string, string | string[]>;
  /** A buffered body, or a stream forwarded as it arrives. */
  body?: Buffer | string | Readable | null;
  /** An AbortSignal, or an EventEmitter as undici also takes (http/client-abort.ts's UpstreamAbort). */
  signal?: Dispatcher.RequestOptions['signal'];
}

export interface Upstream {
  readonly name: string;
  readonly config: UpstreamConfig;
  request(req: UpstreamRequest): Promise<Dispatcher.ResponseData>;
}

export interface UpstreamRegistry {
  get(name: string): Upstream | undefined;
  close(): Promise<void>;
}

function basePath(baseUrl: string): string {
  const path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  return path === '/' ? '' : path;
}

/** Turns undici's failures into recap's errors; an abort stays an abort. */
export function upstreamFailure(name: string, err: unknown): unknown {
  if (err instanceof RecapError) return err;
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'AbortError' || e.code === 'UND_ERR_ABORTED' || err instanceof undiciErrors.RequestAbortedError) return err;
  if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return errors.upstreamTimeout(name, 'connect');
  if (e.code === 'UND_ERR_HEADERS_TIMEOUT') return errors.upstreamTimeout(name, 'response headers');
  if (e.code === 'UND_ERR_BODY_TIMEOUT') return errors.upstreamTimeout(name, 'response body');
  const code = e.code ?? e.cause?.code;
  return errors.upstreamUnreachable(name, code ?? e.message ?? 'unknown error');
}

function createUpstream(name: string, config: UpstreamConfig): Upstream & { close(): Promise<void> } {
  const url = new URL(config.base_url);
  const prefix = basePath(config.base_url);
  const pool = new Pool(url.origin, {
    connections: config.connections,
    connect: { timeout: config.timeouts.connect_ms },
    headersTimeout: config.timeouts.headers_ms,
    bodyTimeout: config.timeouts.body_idle_ms,
    keepAliveTimeout: 30_000,
  });
  return {
    name,
    config,
    async request(req) {
      try {
        return await traceUpstream(name, req, () =>
          pool.request({
            method: req.method as Dispatcher.HttpMethod,
            path: prefix + req.path,
            headers: req.headers,
            body: req.body ?? null,
            signal: req.signal,
          }),
        );
      } catch (err) {
        throw upstreamFailure(name, err);
      }
    },
    close: () => pool.close(),
  };
}

export function createUpstreamRegistry(config: Config): UpstreamRegistry {
  const upstreams = new Map(Object.entries(config.upstreams).map(([name, u]) => [name, createUpstream(name, u)]));
  return {
    get: (name) => upstreams.get(name),
    close: async () => {
      await Promise.all([...upstreams.values()].map((u) => u.close()));
    },
  };
}
