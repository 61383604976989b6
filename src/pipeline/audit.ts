import { createHmac } from 'node:crypto';
import type { ConversationKey } from '../store/store.js';
import type { Decision } from './decide.js';

// Audit mode (`compaction.mode: audit`): recap plans every request exactly as it would, but
// forwards the client's own bytes and calls no summarizer. A summary it would have written is
// projected at its limit (summary_max_tokens), so the projected tokens-out is what enforcing would
// at most have forwarded. The checkpoints it would have stored are stored, projected, under a key
// of their own, so a later turn reports `reused` as it would have; the enforcing record of the
// conversation is never read or written, and switching the model to `enforce` starts from nothing.

export type AuditAction = 'none' | 'reused' | 'compacted' | 'cleared' | 'degraded';

/** x-recap-audit: what enforcing would have done; `cleared` when the new checkpoint clears results only. */
export function auditActionOf(decision: Decision<unknown> | undefined): AuditAction {
  if (!decision) return 'none';
  if (decision.action === 'compacted' && decision.clearingOnly) return 'cleared';
  return decision.action;
}

/** Where the audit checkpoints of a conversation live: apart from its record (another keyed hash). */
export function auditKey(key: ConversationKey, secret: string): ConversationKey {
  return { tenant: key.tenant, conversation: createHmac('sha256', secret).update('audit\0').update(key.conversation).digest('base64url') };
}
