import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { authenticate, type Caller, type DoorPolicy } from '../auth/caller.js';
import { clientTenant, keepsRecords, TENANT_HASH, tenantOfCaller } from '../conversation/identify.js';
import { errors, RecapError } from '../errors.js';

// Who reads recap's own API (/recap/v1/*) and so which tenants' data it sees. A caller sees its own
// tenant's (its client key, or its credential). The admin token (server.admin_token, header
// x-recap-admin-token) sees every tenant's and may name one; it opens /recap/v1/* on its own, with
// or without a key, and never /v1/*: it forwards nothing and is never a tenant.

export const ADMIN_HEADER = 'x-recap-admin-token';

export interface Viewer {
  admin: boolean;
  /** The caller's own tenant, when it has one whose records are kept. */
  tenant: string | null;
  /** The configured client's name, when the caller is one. */
  client?: string;
}

export interface ViewerPolicy {
  door: DoorPolicy;
  adminToken?: string;
  secret: string;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function presentsAdminToken(headers: IncomingHttpHeaders, adminToken: string | undefined): boolean {
  const presented = headers[ADMIN_HEADER];
  return adminToken !== undefined && typeof presented === 'string' && sameSecret(presented, adminToken);
}

const viewers = new WeakMap<IncomingMessage, Viewer>();

/** The door of /recap/v1/*: decides the viewer, or throws recap's 401 (no admin token and no valid key). */
export function admitViewer(req: IncomingMessage, policy: ViewerPolicy): Viewer {
  const admin = presentsAdminToken(req.headers, policy.adminToken);
  let caller: Caller | undefined;
  try {
    caller = authenticate(req.headers, policy.door);
  } catch (err) {
    // The admin token alone is enough; a key it comes with that is not valid gives it no tenant.
    if (!admin || !(err instanceof RecapError)) throw err;
  }
  const viewer: Viewer = {
    admin,
    tenant: caller && keepsRecords(caller) ? tenantOfCaller(caller, policy.secret) : null,
    ...(caller?.kind === 'client' ? { client: caller.client.name } : {}),
  };
  viewers.set(req, viewer);
  return viewer;
}

export function viewerOf(req: IncomingMessage): Viewer {
  const viewer = viewers.get(req);
  if (!viewer) throw new Error('request was not admitted to /recap/v1');
  return viewer;
}

export interface NamedTenant {
  /** A configured client's name (admin only). */
  client?: string;
  /** A tenant hash (admin only). */
  tenant?: string;
}

/** The tenant an admin names, if any; a caller without the admin token naming one finds nothing. */
function namedTenant(viewer: Viewer, named: NamedTenant, secret: string, what: string): string | null {
  if (named.tenant === undefined && named.client === undefined) return null;
  if (!viewer.admin) throw errors.notFound(what);
  if (named.client !== undefined) return clientTenant(named.client, secret);
  // A tenant is a hash; anything else names no tenant (and must not reach the store as a key).
  if (!TENANT_HASH.test(named.tenant!)) throw errors.invalidRequest('tenant must be a tenant hash: 43 base64url characters.', 'tenant');
  return named.tenant!;
}

/** The one tenant a conversation is looked up in: the named one (admin), else the caller's own. */
export function tenantToRead(viewer: Viewer, named: NamedTenant, secret: string): string {
  const tenant = namedTenant(viewer, named, secret, 'Conversation') ?? viewer.tenant;
  if (tenant !== null) return tenant;
  if (viewer.admin) throw errors.invalidRequest('The admin token names the tenant: ?client=<name> or ?tenant=<tenant hash>.', 'tenant');
  throw errors.unauthorized();
}

/** The tenants a listing covers: the named one, every tenant (null) for the admin, else the caller's own. */
export function tenantsToList(viewer: Viewer, named: NamedTenant, secret: string): string | null {
  const tenant = namedTenant(viewer, named, secret, 'Tenant');
  if (tenant !== null || viewer.admin) return tenant;
  if (viewer.tenant !== null) return viewer.tenant;
  throw errors.unauthorized();
}

/** What the dashboard's login learns of a value it was given (sent both as the admin token and as a key). */
export interface CredentialDescription {
  /** `admin`: the admin token; `client`: a configured client's key; `credential`: a caller's own API key (no clients configured); `none`: recap takes it as neither. */
  kind: 'admin' | 'client' | 'credential' | 'none';
  /** Whether server.admin_token is configured at all. */
  admin_token: boolean;
  /** Whether clients are configured (then only their keys are keys). */
  clients: boolean;
  client: string | null;
  tenant: string | null;
}

/**
 * Describes the credential of a request without refusing it: the dashboard's login asks this
 * once, so that an ordinary login makes no request that fails (no 401 in the browser's console).
 */
export function describeCredential(req: IncomingMessage, policy: ViewerPolicy): CredentialDescription {
  const base = { admin_token: policy.adminToken !== undefined, clients: policy.door.keys !== undefined };
  if (presentsAdminToken(req.headers, policy.adminToken)) return { kind: 'admin', ...base, client: null, tenant: null };
  let caller: Caller;
  try {
    caller = authenticate(req.headers, policy.door);
  } catch (err) {
    if (!(err instanceof RecapError)) throw err;
    return { kind: 'none', ...base, client: null, tenant: null };
  }
  if (!keepsRecords(caller)) return { kind: 'none', ...base, client: null, tenant: null };
  const tenant = tenantOfCaller(caller, policy.secret);
  if (caller.kind === 'client') return { kind: 'client', ...base, client: caller.client.name, tenant };
  return { kind: 'credential', ...base, client: null, tenant };
}
