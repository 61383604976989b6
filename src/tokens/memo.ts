import { LRUCache } from 'lru-cache';
import type { ChatMessage } from '../messages/types.js';
import { isEmpty } from '../conversation/canonical.js';
import type { EncodingName } from './encodings.js';

// The last request of each recently seen conversation, message by message: what it said, its
// canonical hash and its token count. A client re-sends the whole history every turn, and a
// message equal to the one at the same place last time (string equality, a memory compare) has,
// by construction, the same hash and count: recalling them costs far less than hashing the
// message again, which is most of what a known conversation costs recap per request.
//
// Only messages whose canonical fields (conversation/canonical.ts) are all strings or empty are
// kept; the others (tool calls, content parts) are hashed as before. Bounded by an estimate of the
// memory the kept texts hold; one conversation never takes more than a quarter of it.

/** A plain message's canonical fields, an empty one as ''; nothing else of the message is kept. */
interface Kept {
  role: string;
  content: string;
  name: string;
  toolCallId: string;
}

interface Entry {
  encoding: EncodingName;
  /** The request's messages, with those that are not plain left out. */
  messages: readonly (Kept | undefined)[];
  hashes: readonly string[];
  /** Uncalibrated tokens in the entry's encoding. */
  tokens: readonly number[];
  bytes: number;
}

export interface Recalled {
  /** Per message: its hash if it equals the message at its index last time. */
  hashes: readonly (string | undefined)[];
  /** And its uncalibrated count. */
  tokens: readonly (number | undefined)[];
}

export interface ConversationMemo {
  recall(conversation: string, encoding: EncodingName, messages: readonly ChatMessage[]): Recalled | undefined;
  /** Keeps this request as the conversation's last one; `tokens` uncalibrated, aligned with `messages`. */
  remember(conversation: string, encoding: EncodingName, messages: readonly ChatMessage[], hashes: readonly string[], tokens: readonly number[]): void;
  readonly bytes: number;
}

// Estimates: per message, its slot, the object around its fields and its share of the arrays;
// per conversation, the entry and its key.
const MESSAGE_OVERHEAD_BYTES = 160;
const ENTRY_OVERHEAD_BYTES = 400;

function isPlainField(v: unknown): boolean {
  return isEmpty(v) || typeof v === 'string';
}

/** A message whose canonical fields are strings or empty: role, content, name and tool_call_id. */
function isPlain(m: ChatMessage): boolean {
  return typeof m.content === 'string' && typeof m.role === 'string' && isPlainField(m.name) && isPlainField(m.tool_call_id) && isEmpty(m.tool_calls) && isEmpty(m.function_call);
}

/** An optional field of a plain message as the canonical form reads it. */
function text(v: unknown): unknown {
  return isEmpty(v) ? '' : v;
}

/** `m` against a plain message kept last time: equal canonical fields, compared without hashing. */
function sameAsKept(m: ChatMessage, kept: Kept): boolean {
  return (
    m.content === kept.content &&
    m.role === kept.role &&
    text(m.name) === kept.name &&
    text(m.tool_call_id) === kept.toolCallId &&
    isEmpty(m.tool_calls) &&
    isEmpty(m.function_call)
  );
}

export function createConversationMemo(maxBytes: number): ConversationMemo {
  const lru = maxBytes > 0 ? new LRUCache<string, Entry>({ maxSize: maxBytes, maxEntrySize: maxBytes / 4, sizeCalculation: (e) => e.bytes }) : undefined;
  return {
    recall(conversation, encoding, messages) {
      const entry = lru?.get(conversation);
      if (!entry || entry.encoding !== encoding) return undefined;
      const hashes: (string | undefined)[] = [];
      const tokens: (number | undefined)[] = [];
      for (let i = 0; i < messages.length; i++) {
        const kept = entry.messages[i];
        const same = kept !== undefined && sameAsKept(messages[i]!, kept);
        hashes.push(same ? entry.hashes[i] : undefined);
        tokens.push(same ? entry.tokens[i] : undefined);
      }
      return { hashes, tokens };
    },
    remember(conversation, encoding, messages, hashes, tokens) {
      if (!lru) return;
      let bytes = ENTRY_OVERHEAD_BYTES + conversation.length * 2;
      // Only the canonical fields are kept, so that what else a message carries is neither held
      // nor left out of the bound.
      const kept = messages.map((m): Kept | undefined => {
        bytes += MESSAGE_OVERHEAD_BYTES;
        if (!isPlain(m)) return undefined;
        const k: Kept = { role: m.role, content: m.content as string, name: text(m.name) as string, toolCallId: text(m.tool_call_id) as string };
        // Two bytes per UTF-16 unit, as V8 keeps text beyond Latin-1.
        bytes += (k.content.length + k.name.length + k.toolCallId.length) * 2;
        return k;
      });
      lru.set(conversation, { encoding, messages: kept, hashes, tokens, bytes });
    },
    get bytes() {
      return lru?.calculatedSize ?? 0;
    },
  };
}
