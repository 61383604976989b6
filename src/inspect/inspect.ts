import { splitLedger } from '../compaction/ledger-section.js';
import { conversationIdHash, TENANT_HASH } from '../conversation/identify.js';
import { errors } from '../errors.js';
import { isLive, isPending, prefixOf } from '../store/checkpoints.js';
import type { Records } from '../pipeline/records.js';
import type { ConversationKey } from '../store/store.js';

// GET / DELETE /recap/v1/conversations/{id} (and its /events): a caller sees and forgets only its
// own tenant's conversations (viewer.ts says whose). `{id}` is the conversation id as the client
// sent it, or with `?by=hash` the conversation's keyed hash as the listing shows it (the only
// handle of a conversation whose id recap derived from its opening messages).

export const CONVERSATIONS_PATH = '/recap/v1/conversations/';

/**
 * The conversation id of an inspection URL: the path segment (before `suffix`, e.g. `/events`),
 * percent-decoded as UTF-8, which is how identify.ts reads the header's bytes (conversationIdText).
 */
export function idFromPath(pathname: string, suffix = ''): string {
  const start = pathname.indexOf(CONVERSATIONS_PATH) + CONVERSATIONS_PATH.length;
  const segment = pathname.slice(start, suffix && pathname.endsWith(suffix) ? pathname.length - suffix.length : undefined);
  try {
    return decodeURIComponent(segment);
  } catch {
    throw errors.invalidRequest('The conversation id in the URL must be percent-encoded UTF-8.', 'id');
  }
}

export interface ConversationRef {
  /** As the path gives it: the client's id, or the conversation hash with `by=hash`. */
  id: string;
  by?: string;
  /** A conversation's records are per route: `responses` names the Responses API's (ids only). */
  route?: string;
}

/** The store key of a conversation of `tenant`. */
export function conversationKey(tenant: string, ref: ConversationRef, secret: string): ConversationKey {
  if (ref.by !== undefined && ref.by !== 'id' && ref.by !== 'hash') throw errors.invalidRequest('by must be `id` or `hash`.', 'by');
  if (ref.by === 'hash') {
    if (!TENANT_HASH.test(ref.id)) throw errors.notFound('Conversation');
    return { tenant, conversation: ref.id };
  }
  const route = ref.route ?? 'chat';
  if (route !== 'chat' && route !== 'responses' && route !== 'messages') throw errors.invalidRequest('route must be `chat`, `responses` or `messages`.', 'route');
  return { tenant, conversation: conversationIdHash(tenant, ref.id, secret, route) };
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
    checkpoints: live.map((cp) => {
      const { body, entries } = splitLedger(cp.summary);
      return {
        covered_messages: cp.covered,
        // Indices after the pinned messages: below covered_messages, shown verbatim after the summary;
        // above it, tool results shown as a cleared stub.
        kept_messages: cp.kept ?? [],
        cleared_messages: cp.cleared ?? [],
        prefix_messages: prefixOf(cp),
        provisional: isPending(cp),
        summary: cp.summary,
        // The summary without its identifier ledger, and the ledger's entries (compaction/ledger.ts).
        summary_body: body,
        ledger: entries,
        summary_tokens: cp.summaryTokens,
        covered_tokens: cp.coveredTokens,
        model: cp.model,
        created_at: new Date(cp.createdAt).toISOString(),
      };
    }),
  };
}
