// Keys of what the stores keep per tenant rather than per conversation: summarizer spend per
// window and accepted credentials. Their ids are opaque hashes, checked like conversation keys
// (conversation-tag.ts), so no caller-chosen text ever becomes part of a key.

const OPAQUE = /^[A-Za-z0-9_-]{1,256}$/;

function opaque(id: string): string {
  if (!OPAQUE.test(id)) throw new TypeError('tenant store keys must be base64url hashes');
  return id;
}

export function spendKey(tenant: string, windowStart: number): string {
  if (!Number.isSafeInteger(windowStart)) throw new TypeError('windowStart must be an integer (ms)');
  return `spend:${opaque(tenant)}:${windowStart}`;
}

export function acceptedKey(id: string): string {
  return `accepted:${opaque(id)}`;
}

/** A spend count outlives its window by one more window: long enough for late readers, then gone. */
export const spendTtlMs = (windowMs: number) => 2 * windowMs;
