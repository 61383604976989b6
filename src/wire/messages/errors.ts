import type { RecapError } from '../../errors.js';

// recap's own errors on the Messages route, in Anthropic's shape, so that Anthropic SDKs and
// Claude Code raise and show them as they do Anthropic's: `{"type":"error","error":{"type",
// "message"}}`, with recap's stable code in `error.code` and at the end of the message (Claude
// Code shows only the message).

function anthropicType(err: RecapError): string {
  if (err.status === 401) return 'authentication_error';
  if (err.status === 403) return 'permission_error';
  if (err.status === 404) return 'not_found_error';
  if (err.status === 413) return 'request_too_large';
  if (err.status === 429) return 'rate_limit_error';
  if (err.status === 504) return 'timeout_error';
  return err.status < 500 ? 'invalid_request_error' : 'api_error';
}

export function anthropicErrorJson(err: RecapError): object {
  return { type: 'error', error: { type: anthropicType(err), message: `${err.message} (recap: ${err.code})`, code: err.code } };
}

export function messagesErrorBody(err: RecapError): string {
  return JSON.stringify(anthropicErrorJson(err));
}

/** An error event ending a stream: an upstream's refusal of a continuation (its body as it came, on one line) or recap's own. */
export function messagesErrorEvent(error: { status: number; body: Buffer } | RecapError): string {
  if (!('body' in error)) return `event: error\ndata: ${messagesErrorBody(error)}\n\n`;
  let data: string;
  try {
    data = JSON.stringify(JSON.parse(error.body.toString('utf8')));
  } catch {
    data = JSON.stringify({ type: 'error', error: { type: 'api_error', message: error.body.toString('utf8').slice(0, 2000) } });
  }
  return `event: error\ndata: ${data}\n\n`;
}
