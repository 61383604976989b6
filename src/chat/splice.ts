import type { Span } from '../json/scan.js';
import { arrayElements } from '../json/scan.js';
import { stringifyJson } from '../json/stringify.js';
import type { ChatBody } from './parse-request.js';
import type { ChatMessage } from './types.js';

// DESIGN rule 12: when recap rewrites a request, only `messages` changes. The new array goes into
// the client's bytes in place of the old one; every other byte (numbers such as `seed`
// 9007199254740993 or 1e400 that a JSON round trip would change, key order, spacing, escapes)
// reaches the upstream as the client wrote it. Inside the array, each message the client sent
// keeps its own bytes too: only the objects recap made (the summary, a cleared tool result) are
// serialized. The engine hands back the client's message objects themselves, so identity tells
// them apart.

/** The bytes to forward: the client's body with `messages` replaced by `messages`. */
export function spliceMessages(chat: ChatBody, messages: readonly ChatMessage[]): Buffer {
  const { raw, body } = chat;
  const spans: readonly Span[] = chat.messages.elements ?? arrayElements(raw, chat.messages.value.start).items;
  const indexOf = new Map<ChatMessage, number>();
  body.messages.forEach((m, i) => indexOf.set(m, i));
  const parts: Buffer[] = [raw.subarray(0, chat.messages.value.start), Buffer.from('[')];
  messages.forEach((m, i) => {
    if (i > 0) parts.push(Buffer.from(','));
    const own = indexOf.get(m);
    parts.push(own === undefined ? Buffer.from(stringifyJson(m)) : raw.subarray(spans[own]!.start, spans[own]!.end));
  });
  parts.push(Buffer.from(']'), raw.subarray(chat.messages.value.end));
  return Buffer.concat(parts);
}
