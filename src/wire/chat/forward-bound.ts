import type { TokenCounter } from '../../tokens/counter.js';
import { REPLY_PRIMING_TOKENS, textOnly } from '../../tokens/message-tokens.js';
import type { PromptBound } from '../format.js';
import type { ChatBody } from './parse-request.js';

// Upper bounds of a chat request's prompt tokens for forward-first.ts, worked out without counting
// anything new. A message this process counted before (the same object comes back for the same
// bytes, body/seen-items.ts) counts exactly; any other is bounded by its bytes: every token covers
// at least one byte of text, and the JSON around a message is longer than the tokens OpenAI's
// framing adds, so a text-only message never has more tokens than its bytes. Images, audio and
// files cost more tokens than bytes, so a request with such a message not counted before has no
// bound. Definitions count exactly once counted before; else the whole body's bytes bound them.

export function chatPromptBound(parsed: ChatBody, counter: TokenCounter): PromptBound | null {
  const { body, raw } = parsed;
  const spans = parsed.members?.find((m) => m.key === 'messages')?.elements;
  let messages = spans ? REPLY_PRIMING_TOKENS : raw.length;
  // Messages taken over from an earlier request: its exact counts, noted by this counter (count.ts).
  const earlier = spans ? parsed.run?.earlier<readonly number[]>(counter) : undefined;
  const from = earlier ? parsed.run!.taken : 0;
  for (let i = 0; i < from; i++) messages += earlier![i]!;
  for (let i = from; i < body.messages.length; i++) {
    const m = body.messages[i]!;
    const known = counter.known(m);
    if (known === undefined && !textOnly(m)) return null;
    if (spans) messages += known ?? spans[i]!.end - spans[i]!.start;
  }
  return { messages, definitions: counter.knownTools(body) ?? raw.length };
}
