import type { Attributes } from '@opentelemetry/api';
import type { RequestLog } from '../observability/request-log.js';

// Span attributes, built only from what a request's log line already holds: route, models,
// action, token counts, status. Never message text, headers or credentials.

// A client chooses the model name and the path: bounded so that a span stays small.
const MAX_NAME = 128;
const MAX_PATH = 256;

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The path of a request target, without its query (which may carry anything); of an absolute-form
 * target (`http://user:pw@host/v1/models`) or any other that is not a path, only the path the URL
 * parser reads from it: never its credentials or host.
 */
export function pathOnly(target: string, max = MAX_PATH): string {
  if (target.startsWith('/') && !target.startsWith('//')) {
    const q = target.indexOf('?');
    return truncate(q === -1 ? target : target.slice(0, q), max);
  }
  try {
    return truncate(new URL(target, 'http://recap.invalid').pathname, max);
  } catch {
    return '';
  }
}

export function spanName(log: Pick<RequestLog, 'method' | 'route'>): string {
  return `${log.method} ${log.route}`;
}

function put(out: Attributes, key: string, value: string | number | undefined): void {
  if (value !== undefined) out[key] = value;
}

/** The request span's attributes once the request is done. */
export function requestAttributes(log: RequestLog): Attributes {
  const out: Attributes = { 'http.request.method': log.method, 'http.route': log.route };
  put(out, 'http.response.status_code', log.status);
  put(out, 'gen_ai.request.model', log.model === undefined ? undefined : truncate(log.model, MAX_NAME));
  put(out, 'recap.model', log.modelLabel);
  put(out, 'recap.action', log.action);
  put(out, 'recap.tokens_in', log.tokensIn);
  put(out, 'recap.tokens_out', log.tokensOut);
  put(out, 'recap.conversation', log.conversation);
  put(out, 'recap.outcome', log.outcome);
  put(out, 'recap.upstream_status', log.upstreamStatus);
  put(out, 'error.type', log.error);
  return out;
}

/** A request ended badly when recap says so (its error code) or answered a 5xx. */
export function requestFailed(log: RequestLog): boolean {
  return log.error !== undefined || (log.status ?? 0) >= 500;
}

/** What names an error without its message (which may quote input): its code, else its class. */
export function errorType(err: unknown): string {
  const e = err as { code?: unknown; reason?: unknown; name?: unknown };
  if (typeof e?.reason === 'string') return e.reason;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.name === 'string' ? e.name : 'error';
}
