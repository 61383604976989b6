import type { ChatMessage } from '../messages/types.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { ParsedRequest } from './format.js';

// What the Responses and Messages prompt bounds (responses/forward-bound.ts, messages/forward-bound.ts)
// share: an item or a member not counted before counts as the chat message it amounts to, whose
// texts all come from its own bytes, each token of which covers at least one byte; around them the
// message adds at most MESSAGE_FRAMING_TOKENS (3 per message, its role, 3 per tool call, a name that
// may be a default such as `function`), which the property tests of both bounds hold to.

export const MESSAGE_FRAMING_TOKENS = 10;

/** A top-level member counted as a leading system message (`instructions`, `system`): exactly once counted before, else by its bytes. */
export function memberMessageBound(parsed: ParsedRequest, key: string, message: ChatMessage | null, counter: TokenCounter): number {
  if (!message) return 0;
  const known = counter.known(message);
  if (known !== undefined) return known;
  const member = parsed.members?.find((m) => m.key === key);
  return member ? member.value.end - member.value.start + MESSAGE_FRAMING_TOKENS : parsed.raw.length;
}
