import type { IncomingMessage, ServerResponse } from 'node:http';
import { RecapError, errors, sendError } from '../errors.js';
import { requestAbort } from './client-abort.js';
import { sendUpstreamResponse } from './send-upstream-response.js';
import type { Upstream } from '../upstream/client.js';
import { upstreamRequestHeaders } from '../upstream/headers.js';
import { upstreamTarget } from '../upstream/target.js';

/** A body read already (auth/model-gate.ts), with the Content-Type it goes with when it was encoded anew. */
export interface ReadBody {
  bytes: Buffer;
  contentType?: string | undefined;
}

/**
 * Every `/v1/*` route other than chat completions: the request body is streamed to the default
 * upstream as it arrives (uploads are not buffered) and the response streamed back untouched.
 */
export async function passthrough(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: Upstream,
  opts: { stripHeaders: readonly string[]; clientStallMs: number; body?: ReadBody; errorBody?: (err: RecapError) => string },
): Promise<{ status: number; answered?: number }> {
  const { upstream: signal } = requestAbort(res);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  try {
    const response = await upstream.request({
      method: req.method ?? 'GET',
      path: upstreamTarget(req.url ?? '/'),
      headers: {
        ...upstreamRequestHeaders(req.headers, { apiKey: upstream.config.api_key, api: upstream.config.api }, { chat: false, stripHeaders: opts.stripHeaders }),
        ...(opts.body?.contentType ? { 'content-type': opts.body.contentType } : {}),
      },
      // A body already read (auth/model-gate.ts) goes as those bytes.
      body: opts.body?.bytes ?? (hasBody ? req : null),
      signal,
    });
    await sendUpstreamResponse(res, response, { upstream: upstream.name, clientStallMs: opts.clientStallMs });
    return { status: response.statusCode, answered: response.statusCode };
  } catch (err) {
    if (signal.aborted) return { status: 499 };
    const recapErr = err instanceof RecapError ? err : errors.internal();
    sendError(res, recapErr, {}, opts.errorBody);
    return { status: recapErr.status };
  }
}
