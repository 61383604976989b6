import { LRUCache } from 'lru-cache';
import type { ChatMessage } from '../messages/types.js';

// A request's leading system text (Responses `instructions`, Messages `system` as a string) as the
// system message it counts as, one object per text among those sent lately: the same instructions
// come with every request of a conversation (a Codex session's are ~20 KB), a new string each
// time, and one object lets the counter find their count by its note on it (tokens/counter.ts)
// instead of hashing them again, and the prompt bound (forward-first.ts) read that count exactly.
// Bounded by characters: a text of more than MAX_KEPT_CHARS gets an object of its own each time.

const MAX_KEPT_CHARS = 1 << 20;
const byText = new LRUCache<string, ChatMessage>({ maxSize: 16 * MAX_KEPT_CHARS, sizeCalculation: (_m, text) => Math.max(1, text.length) });

export function systemMessageOf(text: string): ChatMessage {
  if (text.length > MAX_KEPT_CHARS) return { role: 'system', content: text };
  let message = byText.get(text);
  if (!message) {
    message = { role: 'system', content: text };
    byText.set(text, message);
  }
  return message;
}
