// The fake's `encrypted_content` of reasoning items: opaque to clients, like OpenAI's, but signed,
// so that the fake can refuse its own content when it comes back altered (OpenAI answers 400
// invalid_encrypted_content then), which is how a test sees a proxy tamper with it. Content it did
// not mint (a test's hand-written blob) it cannot judge, and takes on trust.
import { createHmac, timingSafeEqual } from 'node:crypto';

// Not a secret: a fixed key lets every fake instance verify what any other one minted.
const KEY = 'recap-fake-upstream-reasoning';
const MAC_BYTES = 16;
// A Fernet token's first bytes (version 0x80, then a timestamp), so the text starts "gAAAAA" as
// OpenAI's do, then a mark of the fake's own: nine bytes, so the base64 prefix is fixed.
const HEADER = Buffer.from([0x80, 0, 0, 0, 0, 0, ...Buffer.from('rcp')]);
const MINTED_PREFIX = HEADER.toString('base64');

export function encryptReasoning(id: string, summary: readonly string[]): string {
  const payload = Buffer.from(JSON.stringify({ id, summary }));
  return Buffer.concat([HEADER, payload, macOf(payload)]).toString('base64');
}

/** Content that carries the fake's mark but was altered (truncated, re-encoded, edited) since it was minted. */
export function isTamperedReasoning(content: string): boolean {
  return content.startsWith(MINTED_PREFIX) && !verifies(content);
}

function verifies(content: string): boolean {
  const bytes = Buffer.from(content, 'base64');
  if (bytes.toString('base64') !== content || bytes.length < HEADER.length + MAC_BYTES) return false;
  const payload = bytes.subarray(HEADER.length, bytes.length - MAC_BYTES);
  return timingSafeEqual(macOf(payload), bytes.subarray(bytes.length - MAC_BYTES));
}

function macOf(payload: Buffer): Buffer {
  return createHmac('sha256', KEY).update(payload).digest().subarray(0, MAC_BYTES);
}
