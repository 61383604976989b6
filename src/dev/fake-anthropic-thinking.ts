// Signatures of the fake's thinking blocks. Anthropic signs each `thinking` block (and encrypts a
// `redacted_thinking` block's `data`) and refuses a block that comes back altered: a proxy must
// return them byte for byte. The fake signs with an HMAC of the thinking text, and verifies it
// when the block comes back in a later request.
import { createHmac, timingSafeEqual } from 'node:crypto';

// Not a secret: every fake instance verifies what any other one signed.
const KEY = 'recap-fake-anthropic-thinking';

const mac = (text: string): string => createHmac('sha256', KEY).update(text).digest('base64');

export function signThinking(thinking: string): string {
  return mac(`thinking:${thinking}`);
}

export function redactedThinkingData(seed: string): string {
  const payload = Buffer.from(`redacted:${seed}`).toString('base64');
  return `${payload}.${mac(payload)}`;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Why a thinking or redacted_thinking block that came back is refused, or null when it verifies. */
export function thinkingProblem(block: any): string | null {
  if (block?.type === 'thinking') {
    if (typeof block.thinking !== 'string' || typeof block.signature !== 'string') return 'thinking block without `thinking` or `signature`';
    return same(block.signature, signThinking(block.thinking)) ? null : 'Invalid `signature` in `thinking` block';
  }
  if (block?.type === 'redacted_thinking') {
    const [payload, signature] = String(block.data).split('.');
    return payload !== undefined && signature !== undefined && same(signature, mac(payload)) ? null : 'Invalid `data` in `redacted_thinking` block';
  }
  return null;
}
