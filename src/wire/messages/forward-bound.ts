import type { TokenCounter } from '../../tokens/counter.js';
import { REPLY_PRIMING_TOKENS } from '../../tokens/message-tokens.js';
import type { PromptBound } from '../format.js';
import { MESSAGE_FRAMING_TOKENS, memberMessageBound } from '../item-bound.js';
import { countedAs, countsKeyOf, knownRawToolsTokens, MEDIA_NOTE, mediaOf, systemMessage } from './count.js';
import { hasMedia } from './media-tokens.js';
import type { MessagesBody } from './recall.js';

// Upper bounds of a Messages request's prompt tokens for forward-first.ts, worked out as the chat
// route's are (wire/chat/forward-bound.ts), without counting anything new. A message this process
// counted before (the same object comes back for the same bytes, body/seen-items.ts) counts
// exactly, its media included. Any other counts as the chat message of its blocks' text
// (count.ts), all of which comes from the message's own bytes (a tool call's name and input, a
// result's text, thinking and its redacted data, an unknown block's JSON), and every token of
// which, by any encoding recap ships (the estimate included: at most one token per byte), covers
// at least one byte: so its bytes bound its text, and MESSAGE_FRAMING_TOKENS what the message adds
// around it (wire/item-bound.ts). An image or a PDF costs more tokens than bytes: a request with
// one not counted before has no bound. `system` counts as a leading system message, exactly once counted before
// (wire/system-message.ts), else by its bytes the same way; tools exactly once counted before,
// else the body's bytes bound them.

export function messagesPromptBound(parsed: MessagesBody, counter: TokenCounter): PromptBound | null {
  const { body, raw } = parsed;
  const spans = parsed.members?.find((m) => m.key === 'messages')?.elements;
  if (!spans) return null;
  let messages = REPLY_PRIMING_TOKENS + memberMessageBound(parsed, 'system', systemMessage(body), counter);
  // Messages taken over from an earlier request: its exact counts and media, noted by this counter (count.ts).
  const counts = parsed.run?.earlier<readonly number[]>(countsKeyOf(counter));
  const media = parsed.run?.earlier<readonly number[]>(MEDIA_NOTE);
  const from = counts && media ? parsed.run!.taken : 0;
  for (let i = 0; i < from; i++) messages += counts![i]! + media![i]!;
  for (let i = from; i < body.messages.length; i++) {
    const item = body.messages[i]!;
    const known = counter.known(countedAs(item));
    if (known !== undefined) messages += known + mediaOf(item);
    else if (Array.isArray(item.content) && hasMedia(item.content)) return null;
    else messages += spans[i]!.end - spans[i]!.start + MESSAGE_FRAMING_TOKENS;
  }
  return { messages, definitions: knownRawToolsTokens(counter, body) ?? raw.length };
}
