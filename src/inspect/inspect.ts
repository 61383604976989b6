import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Caller } from '../auth/caller.js';
import { TENANT_HASH, clientTenant, conversationIdHash, keepsRecords, tenantOfCaller } from '../conversation/identify.js';
import { errors } from '../errors.js';
import { isLive, isPending, prefixOf } from '../store/checkpoints.js';
import type { Records } from '../pipeline/records.js';
import type { ConversationKey } from '../store/store.js';

// GET / DELETE /recap/v1/conversations/{id}: a caller sees and forgets only its own records (the
// same tenant that made them: its client, or its credential). A caller without any credential has
// none to see (unless server.anonymous is `shared`). An admin token, when configured, may name
// another tenant: a configured client by its name in `?client=`, any tenant by its hash in `?tenant=`.

export const ADMIN_HEADER = 'x-recap-admin-token';
export const CONVERSATIONS_PATH = '/recap/v1/conversations/';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The conversation id of an inspection URL: the path segment, percent-decoded as UTF-8, which is
 * how identify.ts reads the header's bytes (conversationIdText).
 */
export function idFromPath(pathname: string): string {
  const segment = pathname.slice(pathname.indexOf(CONVERSATIONS_PATH) + CONVERSATIONS_PATH.length);
  try {
    return decodeURIComponent(segment);
  } catch {
    throw errors.invalidRequest('The conversation id in the URL must be percent-encoded UTF-8.', 'id');
  }
}

export interface InspectionTarget {
  key: ConversationKey;
  /** The id as the answer shows it. */
  id: string;
}

export function inspectionTarget(
  caller: Caller,
  headers: IncomingHttpHeaders,
  id: string,
  named: { tenant?: string; client?: string; route?: string },
  opts: { secret: string; adminToken?: string },
): InspectionTarget {
  // A conversation's records are per route: `?route=responses` names the Responses API's.
  const route = named.route ?? 'chat';
  if (route !== 'chat' && route !== 'responses') throw errors.invalidRequest('route must be `chat` or `responses`.', 'route');
  let tenant: string;
  if (named.tenant !== undefined || named.client !== undefined) {
    const admin = headers[ADMIN_HEADER];
    if (!opts.adminToken || typeof admin !== 'string' || !sameSecret(admin, opts.adminToken)) throw errors.notFound('Conversation');
    if (named.client !== undefined) {
      tenant = clientTenant(named.client, opts.secret);
    } else {
      // A tenant is a hash; anything else names no tenant (and must not reach the store as a key).
      if (!TENANT_HASH.test(named.tenant!)) throw errors.invalidRequest('tenant must be a tenant hash: 43 base64url characters.', 'tenant');
      tenant = named.tenant!;
    }
  } else {
    if (!keepsRecords(caller)) throw errors.unauthorized();
    tenant = tenantOfCaller(caller, opts.secret);
  }
  return { key: { tenant, conversation: conversationIdHash(tenant, id, opts.secret, route) }, id };
}

export async function describeConversation(records: Records, key: ConversationKey, id: string) {
  const record = await records.load(key);
  if (record === 'unavailable') throw errors.storeUnavailable();
  const now = Date.now();
  const live = record?.checkpoints.filter((cp) => isLive(cp, now)) ?? [];
  if (!record || live.length === 0) throw errors.notFound('Conversation');
  return {
    id,
    version: record.version,
    updated_at: new Date(record.updatedAt).toISOString(),
    checkpoints: live.map((cp) => ({
      covered_messages: cp.covered,
      // Indices after the pinned messages: below covered_messages, shown verbatim after the summary;
      // above it, tool results shown as a cleared stub.
      kept_messages: cp.kept ?? [],
      cleared_messages: cp.cleared ?? [],
      prefix_messages: prefixOf(cp),
      provisional: isPending(cp),
      summary: cp.summary,
      summary_tokens: cp.summaryTokens,
      covered_tokens: cp.coveredTokens,
      model: cp.model,
      created_at: new Date(cp.createdAt).toISOString(),
    })),
  };
}
