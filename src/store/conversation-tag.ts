import type { ConversationKey } from './store.js';

// One string naming a conversation in a store. Tenant and conversation are base64url hashes; the
// check keeps it that way, because a '.' (or a '{' / '}' in a Redis hash tag) inside either part
// could make two tenants' keys collide, and tenant isolation depends on them never colliding.

const OPAQUE_HASH = /^[A-Za-z0-9_-]{1,256}$/;

export function conversationTag(key: ConversationKey): string {
  if (!OPAQUE_HASH.test(key.tenant) || !OPAQUE_HASH.test(key.conversation)) {
    throw new TypeError('store keys must be base64url hashes (tenant and conversation)');
  }
  return `${key.tenant}.${key.conversation}`;
}
