// @ts-check
// The dashboard's one way to recap's API. The key the login form took is kept in sessionStorage
// (this tab only, gone when it closes; never a cookie, so no other site can make the browser send
// it) and sent as the header its kind takes: the admin token as x-recap-admin-token, a key as
// Authorization: Bearer. The login asks /recap/ui/login what the value is, once.

const STORAGE = 'recap.dashboard.session';

/** @typedef {{ kind: 'admin' | 'key', value: string, who: { admin: boolean, kind?: string, tenant: string | null, client: string | null } }} Session */

export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** @returns {Session | null} */
export function session() {
  const raw = sessionStorage.getItem(STORAGE);
  return raw ? JSON.parse(raw) : null;
}

export function logout() {
  sessionStorage.removeItem(STORAGE);
}

/** @param {Pick<Session, 'kind' | 'value'>} s @returns {Record<string, string>} */
const headersOf = (s) => (s.kind === 'admin' ? { 'x-recap-admin-token': s.value } : { authorization: `Bearer ${s.value}` });

/**
 * @param {string} path
 * @param {{ method?: string, as?: Pick<Session, 'kind' | 'value'> | null }} [options]
 * @returns {Promise<any>}
 */
export async function api(path, { method = 'GET', as = session() } = {}) {
  if (!as) throw new ApiError(401, 'missing_credential', 'Log in first.');
  const res = await fetch(path, { method, headers: headersOf(as), cache: 'no-store' });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, body?.error?.code ?? 'error', body?.error?.message ?? res.statusText);
  return body;
}

/**
 * @typedef {{ kind: 'admin' | 'client' | 'credential' | 'none', admin_token: boolean, clients: boolean, client: string | null,
 *   tenant: string | null, conversations: boolean | null }} Described
 */

/** What a login value was taken for, and what the page says about it. */
export class LoginError extends Error {}

/** Why a value does not log in, in words: which credential it is not, and what recap is set up to take. @param {Described} d */
function refusal(d) {
  if (d.kind === 'credential') {
    return 'This is not recap’s admin token (server.admin_token), and no request was made with it as an API key: if you meant the admin token, it is wrong; if it is an API key, send a request through recap with it first.';
  }
  if (d.clients) {
    return d.admin_token
      ? 'recap does not accept this key: it is neither the admin token (server.admin_token) nor a configured client’s key.'
      : 'recap does not accept this key: it is not a configured client’s key (and recap has no admin token configured).';
  }
  return 'recap does not accept this key: a request without a credential keeps no records (server.anonymous: off).';
}

/**
 * Finds out what the value is, in one request that answers 200 whatever it is (no failed load in
 * the console): the admin token, a client key, or a caller's own API key; keeps it when it opens anything.
 * @param {string} value
 * @returns {Promise<Session>}
 */
export async function login(value) {
  const res = await fetch('/recap/ui/login', { headers: { 'x-recap-admin-token': value, authorization: `Bearer ${value}` }, cache: 'no-store' });
  /** @type {Described} */
  const d = await res.json();
  const usable = d.kind === 'admin' || d.kind === 'client' || (d.kind === 'credential' && (d.conversations || !d.admin_token));
  if (!usable) throw new LoginError(refusal(d));
  /** @type {Session} */
  const s = { kind: d.kind === 'admin' ? 'admin' : 'key', value, who: { admin: d.kind === 'admin', kind: d.kind, tenant: d.tenant, client: d.client } };
  sessionStorage.setItem(STORAGE, JSON.stringify(s));
  return s;
}

/** The credential in words: its kind, and what it lets the page see. @param {Session} s */
export function credentialText(s) {
  if (s.who.admin) return 'Logged in with the admin token: every tenant’s requests and conversations.';
  if (s.who.client) return `Logged in with the client key of ${s.who.client}: that client’s requests and conversations only.`;
  return 'Logged in with a caller credential (an API key recap forwards upstream): the requests and conversations made with that key only.';
}

/** The query that names a conversation's tenant, for the admin (a tenant reads its own). @param {string | null} tenant */
export const tenantQuery = (tenant) => (session()?.kind === 'admin' && tenant ? `&tenant=${encodeURIComponent(tenant)}` : '');
