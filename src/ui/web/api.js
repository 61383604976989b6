// @ts-check
// The dashboard's one way to recap's API. The key the login form took is kept in sessionStorage
// (this tab only, gone when it closes; never a cookie, so no other site can make the browser send
// it) and sent as the header its kind takes: the admin token as x-recap-admin-token, a key as
// Authorization: Bearer.

const STORAGE = 'recap.dashboard.session';

/** @typedef {{ kind: 'admin' | 'key', value: string, who: { admin: boolean, tenant: string | null, client: string | null } }} Session */

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
 * Finds out what the key is (the admin token, or a client key or API key) and keeps it.
 * @param {string} value
 * @returns {Promise<Session>}
 */
export async function login(value) {
  for (const kind of /** @type {const} */ (['admin', 'key'])) {
    try {
      const who = await api('/recap/v1/whoami', { as: { kind, value } });
      if (kind === 'key' || who.admin) {
        const s = { kind, value, who };
        sessionStorage.setItem(STORAGE, JSON.stringify(s));
        return s;
      }
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 401) throw err;
    }
  }
  throw new ApiError(401, 'invalid_api_key', 'recap does not accept this key.');
}

/** The query that names a conversation's tenant, for the admin (a tenant reads its own). @param {string | null} tenant */
export const tenantQuery = (tenant) => (session()?.kind === 'admin' && tenant ? `&tenant=${encodeURIComponent(tenant)}` : '');
