import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { MAX_CONVERSATION_ID_BYTES, conversationIdHash, tenantOf } from './conversation/identify.js';
import { errors } from './errors.js';
import type { Records } from './pipeline/records.js';
import type { ConversationKey } from './store/store.js';

// GET / DELETE /recap/v1/conversations/{id}: a caller sees and forgets only its own records (the
// same credential that made them). An admin token, when configured, may name another tenant by
// its hash (as logged) in `?tenant=`.

export const ADMIN_HEADER = 'x-recap-admin-token';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function inspectionKey(
  headers: IncomingHttpHeaders,
  id: string,
  tenantParam: string | undefined,
  opts: { secret: string; adminToken?: string },
): ConversationKey {
  if (Buffer.byteLength(id) > MAX_CONVERSATION_ID_BYTES) throw errors.headerTooLong('id', MAX_CONVERSATION_ID_BYTES);
  const admin = headers[ADMIN_HEADER];
  let tenant = tenantOf(headers, opts.secret);
  if (tenantParam !== undefined) {
    if (!opts.adminToken || typeof admin !== 'string' || !sameSecret(admin, opts.adminToken)) throw errors.notFound('Conversation');
    tenant = tenantParam;
  }
  return { tenant, conversation: conversationIdHash(tenant, id, opts.secret) };
}

export async function describeConversation(records: Records, key: ConversationKey, id: string) {
  const record = await records.load(key);
  if (record === 'unavailable') throw errors.storeUnavailable();
  if (!record || record.checkpoints.length === 0) throw errors.notFound('Conversation');
  return {
    id,
    version: record.version,
    updated_at: new Date(record.updatedAt).toISOString(),
    checkpoints: record.checkpoints.map((cp) => ({
      covered_messages: cp.covered,
      summary: cp.summary,
      summary_tokens: cp.summaryTokens,
      covered_tokens: cp.coveredTokens,
      model: cp.model,
      created_at: new Date(cp.createdAt).toISOString(),
    })),
  };
}
