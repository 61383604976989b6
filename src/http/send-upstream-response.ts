import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { clientResponseHeaders } from '../upstream/headers.js';

export interface SendOptions {
  /** recap's own response headers (x-recap-*). */
  extraHeaders?: Record<string, string>;
  /** Sees every body chunk as it passes; must not keep or alter it. */
  observe?: (chunk: Buffer) => void;
}

export type SendOutcome = 'complete' | 'client_closed' | 'upstream_broken';

/**
 * Writes the upstream's status and headers, then pipes its body chunk by chunk: each upstream
 * chunk is one write to the client, so a stream is never re-chunked or buffered. If the upstream
 * breaks mid-body the client connection is destroyed (a broken stream, never a clean end); if
 * the client goes away the upstream request is destroyed with it.
 */
export function sendUpstreamResponse(
  res: ServerResponse,
  upstream: Dispatcher.ResponseData,
  opts: SendOptions = {},
): Promise<SendOutcome> {
  const headers = clientResponseHeaders(upstream.headers);
  for (const [name, value] of Object.entries(opts.extraHeaders ?? {})) headers[name] = value;
  res.writeHead(upstream.statusCode, headers);
  // A stream's headers go out at once, so the client sees it start before the first token; other
  // replies leave with their first body chunk in one write.
  if (String(upstream.headers['content-type'] ?? '').includes('text/event-stream')) res.flushHeaders();
  if (opts.observe) upstream.body.on('data', opts.observe);
  return relay(upstream.body, res);
}

/**
 * `body.pipe(res)` (which keeps backpressure) plus teardown: whichever side fails first names the
 * outcome and the other side is destroyed with it. Not `stream.pipeline`: on every completed
 * response it aborts an AbortController of its own, building a DOMException with a stack trace,
 * a measurable share of a proxied request's CPU.
 */
function relay(body: Readable, res: ServerResponse): Promise<SendOutcome> {
  return new Promise((resolve) => {
    let outcome: SendOutcome | undefined;
    const settle = (result: SendOutcome) => {
      if (outcome) return;
      outcome = result;
      if (result !== 'complete') {
        body.destroy();
        res.destroy();
      }
      resolve(result);
    };
    body.once('error', () => settle('upstream_broken'));
    res.once('close', () => settle(res.writableFinished ? 'complete' : 'client_closed'));
    body.pipe(res);
  });
}
