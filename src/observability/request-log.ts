import { headChars } from '../compaction/text.js';

/** What one request leaves behind in its log line and metrics; filled in along the path. */
export interface RequestLog {
  startedAt: number;
  route: string;
  method: string;
  status?: number;
  /** As the client named it, cut by clientField. */
  model?: string;
  /** The model's config entry (`match`), a bounded metrics label. */
  modelLabel?: string;
  conversation?: string;
  action?: string;
  tokensIn?: number;
  tokensOut?: number;
  upstreamStatus?: number;
  upstreamHeadersMs?: number;
  summarizerMs?: number;
  outcome?: string;
  error?: string;
}

export function newRequestLog(method: string, route: string): RequestLog {
  return { startedAt: performance.now(), method, route };
}

// Values a client chose (a model name of 2 MiB, say) are cut before they reach a log line, so
// that one request cannot write megabytes of logs.
export const LOG_FIELD_MAX_CHARS = 200;

/** `value` as a log field: at most LOG_FIELD_MAX_CHARS characters, then a note of what was cut. */
export function clientField(value: string): string {
  if (value.length <= LOG_FIELD_MAX_CHARS) return value;
  const head = headChars(value, LOG_FIELD_MAX_CHARS);
  return `${head}…[${value.length - head.length} more chars]`;
}
