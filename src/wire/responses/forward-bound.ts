import type { TokenCounter } from '../../tokens/counter.js';
import { REPLY_PRIMING_TOKENS, textOnly } from '../../tokens/message-tokens.js';
import type { PromptBound } from '../format.js';
import { MESSAGE_FRAMING_TOKENS, memberMessageBound } from '../item-bound.js';
import { countedAs, countsKeyOf, instructionsMessage, knownRawToolsTokens } from './count.js';
import type { ResponsesBody } from './parse-request.js';

// Upper bounds of a Responses request's prompt tokens for forward-first.ts and reuse-first.ts,
// worked out as the chat route's are (wire/chat/forward-bound.ts), without counting anything new.
// An item this process counted before (the same object comes back for the same bytes,
// body/seen-items.ts) counts exactly. Any other counts as the chat message it amounts to
// (count.ts), whose texts all come from the item's own bytes and each token of which covers at
// least one byte: so its bytes bound its texts, and MESSAGE_FRAMING_TOKENS what the message adds
// around them (wire/item-bound.ts). An item with an image, a file or audio costs more tokens than
// bytes: a request with one not counted before has no bound. `instructions` count as a leading system message: exactly
// once counted before (wire/system-message.ts), else by their bytes the same way. Definitions count
// exactly once counted before, else the body's bytes bound them.

export function responsesPromptBound(parsed: ResponsesBody, counter: TokenCounter): PromptBound | null {
  const { body, raw } = parsed;
  const items = body.input;
  const spans = parsed.members?.find((m) => m.key === 'input')?.elements;
  if (!Array.isArray(items) || !spans) return null;
  let messages = REPLY_PRIMING_TOKENS + memberMessageBound(parsed, 'instructions', instructionsMessage(body), counter);
  // Items taken over from an earlier request: its exact counts, noted by this counter (count.ts).
  const earlier = parsed.run?.earlier<readonly number[]>(countsKeyOf(counter));
  const from = earlier ? parsed.run!.taken : 0;
  for (let i = 0; i < from; i++) messages += earlier![i]!;
  for (let i = from; i < items.length; i++) {
    const m = countedAs(items[i]!);
    const known = counter.known(m);
    if (known === undefined && !textOnly(m)) return null;
    messages += known ?? spans[i]!.end - spans[i]!.start + MESSAGE_FRAMING_TOKENS;
  }
  return { messages, definitions: knownRawToolsTokens(counter, body) ?? raw.length };
}
