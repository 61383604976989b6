import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
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
export async function sendUpstreamResponse(
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
  // Whichever side failed first names the outcome; pipeline then tears down the other side.
  let failure: SendOutcome | undefined;
  upstream.body.once('error', () => {
    failure ??= 'upstream_broken';
  });
  res.once('close', () => {
    if (!res.writableFinished) failure ??= 'client_closed';
  });
  try {
    await pipeline(upstream.body, res);
    return 'complete';
  } catch {
    if (!res.destroyed) res.destroy();
    return failure ?? 'upstream_broken';
  }
}
