import type { ServerResponse } from 'node:http';

// recap's own failures. Each carries a stable `code` (clients and tests match on it) and is sent
// in OpenAI's error shape so that SDKs raise their usual error classes.

export type RecapErrorType = 'invalid_request_error' | 'api_error' | 'authentication_error' | 'not_found_error';

export class RecapError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type: RecapErrorType = status < 500 ? 'invalid_request_error' : 'api_error',
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'RecapError';
  }
}

export const errors = {
  invalidJson: (detail: string) => new RecapError(400, 'invalid_json', `We could not parse the JSON body of your request: ${detail}`),
  invalidRequest: (message: string, param: string | null = null) => new RecapError(400, 'invalid_request', message, 'invalid_request_error', param),
  bodyTooLarge: (limit: number) => new RecapError(413, 'body_too_large', `Request body exceeds the limit of ${limit} bytes.`),
  // HTTP that Node's parser refuses before any route runs (see http/client-error.ts).
  malformedRequest: (reason: string) => new RecapError(400, 'malformed_request', `recap could not parse the HTTP request: ${reason}`),
  requestTimeout: () => new RecapError(408, 'request_timeout', 'The request was not received in time.'),
  headersTooLarge: () => new RecapError(431, 'headers_too_large', 'The request headers are too large.'),
  headerTooLong: (name: string, limit: number) => new RecapError(400, 'header_too_long', `Header ${name} exceeds ${limit} bytes.`, 'invalid_request_error', name),
  notFound: (what: string) => new RecapError(404, 'not_found', `${what} not found.`, 'not_found_error'),
  unauthorized: () => new RecapError(401, 'missing_credential', 'This endpoint needs an Authorization header.', 'authentication_error'),
  invalidApiKey: () => new RecapError(401, 'invalid_api_key', 'Incorrect API key provided: recap knows no client with this key.', 'authentication_error'),
  modelNotAllowed: (model: string) =>
    new RecapError(403, 'model_not_allowed', `This API key may not use model ${JSON.stringify(model.slice(0, 100))}.`, 'invalid_request_error', 'model'),
  // A client restricted by `models` sent a body recap cannot read with certainty (auth/model-gate.ts).
  modelUnverifiable: (why: string) =>
    new RecapError(
      400,
      'model_unverifiable',
      `recap cannot tell for certain which model this request names: ${why}. A client restricted to some models sends UTF-8 JSON or a multipart form.`,
      'invalid_request_error',
      'model',
    ),
  upstreamUnreachable: (upstream: string, detail: string) => new RecapError(502, 'upstream_unreachable', `Upstream "${upstream}" could not be reached: ${detail}`),
  recallReplyTooLarge: (upstream: string, limit: number) =>
    new RecapError(
      502,
      'upstream_reply_too_large',
      `Upstream "${upstream}" answered a recall continuation with more than ${limit} bytes, the most recap holds of a reply to answer recalls in it.`,
    ),
  upstreamBrokeOff: (upstream: string) => new RecapError(502, 'upstream_stream_failed', `Upstream "${upstream}" ended its stream before the reply was complete.`),
  upstreamTimeout: (upstream: string, phase: string) => new RecapError(504, 'upstream_timeout', `Upstream "${upstream}" timed out (${phase}).`),
  // The model's upstream speaks another API than the route (an Anthropic request resolved to an OpenAI host, say): its key must not go there.
  wrongUpstreamApi: (model: string, route: string, upstream: string, api: string, wanted: string) =>
    new RecapError(
      400,
      'wrong_upstream_api',
      `Model ${JSON.stringify(model.slice(0, 100))} resolves to upstream "${upstream}" (api: ${api}), which does not serve ${route}: give the model a \`models[]\` entry whose upstream has \`upstreams.<name>.api: ${wanted}\`.`,
      'invalid_request_error',
      'model',
    ),
  noAnthropicUpstream: () =>
    new RecapError(404, 'no_anthropic_upstream', 'This is an Anthropic API request and no upstream has `upstreams.<name>.api: anthropic`.', 'not_found_error'),
  storeUnavailable: () => new RecapError(503, 'store_unavailable', 'The conversation store is unreachable; try again shortly.'),
  internal: () => new RecapError(500, 'internal_error', 'recap failed to process the request.'),
};

export function errorBody(err: RecapError): string {
  return JSON.stringify({ error: { message: err.message, type: err.type, param: err.param, code: err.code } });
}

/** recap's error as one SSE event, for a stream whose headers already went out (SDKs raise it). */
export function sseErrorEvent(err: RecapError): string {
  return `data: ${errorBody(err)}\n\n`;
}

/** Answers with a recap error (in `shape`: an API's own, OpenAI's by default) unless headers already went out (then the connection is cut). */
export function sendError(res: ServerResponse, err: RecapError, extraHeaders: Record<string, string> = {}, shape: (err: RecapError) => string = errorBody): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = shape(err);
  res.writeHead(err.status, {
    ...extraHeaders,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
