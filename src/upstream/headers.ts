import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** The headers a client authenticates with, in OpenAI's and Azure's styles and Anthropic's. */
export const CREDENTIAL_HEADERS = ['authorization', 'api-key', 'x-api-key'] as const;

// RFC 9110 §7.6.1: connection-specific fields apply to one hop only, as do the fields that the
// `Connection` header nominates. They are stripped before anything else looks at the headers.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const NONE: ReadonlySet<string> = new Set();

function nominated(headers: IncomingHttpHeaders): ReadonlySet<string> {
  const value = headers.connection;
  if (!value) return NONE;
  return new Set(
    String(value)
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

// recap's own headers (x-recap-action, x-recap-admin-token, ...) concern recap alone: a client's
// never reach the upstream (an admin token would leak) and an upstream's never reach the client
// (it could forge or hide what recap did).
const RECAP_PREFIX = 'x-recap-';

/** Copies the end-to-end headers, skipping hop-by-hop ones, recap's own and any name in `drop`. */
export function endToEndHeaders(headers: IncomingHttpHeaders, drop: ReadonlySet<string> = NONE): Record<string, string | string[]> {
  const named = nominated(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || drop.has(name) || name.startsWith(RECAP_PREFIX)) continue;
    out[name] = value;
  }
  return out;
}

// host is the upstream's; content-length is recomputed from the bytes actually sent.
const NOT_FORWARDED_UPSTREAM = new Set(['host', 'content-length', 'expect']);
// Chat responses are read for token usage, so ask the upstream for identity encoding there.
const NOT_FORWARDED_CHAT = new Set([...NOT_FORWARDED_UPSTREAM, 'accept-encoding']);

export interface UpstreamAuth {
  apiKey?: string;
  /** The API the upstream speaks: its own key goes as `Authorization: Bearer` (OpenAI) or `x-api-key` (Anthropic). */
  api?: 'openai' | 'anthropic';
}

/** The names not forwarded, made once per route's stripHeaders (one array per route) and kind of request. */
const dropSets = new WeakMap<readonly string[], (ReadonlySet<string> | undefined)[]>();
const NO_STRIP: readonly string[] = [];

function namesNotForwarded(chat: boolean, replacesCredentials: boolean, stripHeaders: readonly string[]): ReadonlySet<string> {
  let byKind = dropSets.get(stripHeaders);
  if (!byKind) {
    byKind = [];
    dropSets.set(stripHeaders, byKind);
  }
  const kind = (chat ? 2 : 0) + (replacesCredentials ? 1 : 0);
  let drop = byKind[kind];
  if (!drop) {
    // recap's own key replaces every credential the client sent, in whichever header style.
    drop = new Set([...(chat ? NOT_FORWARDED_CHAT : NOT_FORWARDED_UPSTREAM), ...stripHeaders, ...(replacesCredentials ? CREDENTIAL_HEADERS : [])]);
    byKind[kind] = drop;
  }
  return drop;
}

export function upstreamRequestHeaders(
  client: IncomingHttpHeaders,
  auth: UpstreamAuth,
  opts: { chat: boolean; stripHeaders?: readonly string[] },
): Record<string, string | string[]> {
  const out = endToEndHeaders(client, namesNotForwarded(opts.chat, Boolean(auth.apiKey), opts.stripHeaders ?? NO_STRIP));
  if (auth.apiKey && auth.api === 'anthropic') out['x-api-key'] = auth.apiKey;
  else if (auth.apiKey) out.authorization = `Bearer ${auth.apiKey}`;
  return out;
}

/** Upstream response headers as they go to the client (hop-by-hop stripped). */
export function clientResponseHeaders(upstream: IncomingHttpHeaders | Record<string, string | string[] | undefined>): OutgoingHttpHeaders {
  return endToEndHeaders(upstream as IncomingHttpHeaders);
}
