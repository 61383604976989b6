import type { ServerOptions } from 'node:http';
import type { Config } from '../config/config.js';

// Node's headersTimeout and requestTimeout bound how long a client may take to send a request's
// headers and the whole request; Node stops timing a request once its body is in, so streamed
// responses of any length are not affected. Node checks them on a timer (every 30 s by default),
// so a timeout fires up to one interval late: checking at a tenth of the shorter one (the headers
// timeout, which config validation keeps ≤ the request timeout) keeps that within 10%.

export function serverTimeouts(server: Config['server']): ServerOptions {
  return {
    headersTimeout: server.headers_timeout_ms,
    requestTimeout: server.request_timeout_ms,
    connectionsCheckingInterval: Math.min(30_000, Math.ceil(server.headers_timeout_ms / 10)),
  };
}
