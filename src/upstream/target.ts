// The request target a passthrough route sends upstream: the client's path below /v1 and its query,
// in origin form. Only the path of an absolute-form target (`GET http://elsewhere/v1/models`) is
// kept, dot segments are resolved and leading slashes merged, so whatever the client writes, the
// request goes to the configured upstream and stays under its base path: a target cannot name
// another host (`http://…`, `//host/…`) nor climb out of the base path (`/v1/../../admin`).

export function upstreamTarget(requestTarget: string): string {
  const url = new URL(requestTarget, 'http://recap.invalid');
  const below = url.pathname.replace(/^\/v1(?=\/|$)/, '').replace(/^\/{2,}/, '/');
  return below + url.search;
}

/** The query of a request target (`?beta=true` from `/v1/messages?beta=true`), as the client wrote it: a compacting route's own path is fixed, its query goes upstream with it. */
export function queryOf(requestTarget: string): string {
  const start = requestTarget.indexOf('?');
  return start < 0 ? '' : new URL(requestTarget, 'http://recap.invalid').search;
}
