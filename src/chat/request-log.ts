/** What one request leaves behind in its log line and metrics; filled in along the path. */
export interface RequestLog {
  startedAt: number;
  route: string;
  method: string;
  status?: number;
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
