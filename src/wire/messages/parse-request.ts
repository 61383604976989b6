import { objectNamingModel, parseJsonBody, readJsonBody, refuseDuplicates } from '../../body/json-body.js';
import { errors } from '../../errors.js';
import type { Pause } from '../../slicing/slicer.js';
import type { SeenInput } from '../format.js';
import type { MessagesBody } from './recall.js';
import type { MessagesRequest } from './types.js';

// Parses and checks the few fields recap relies on (`model`, `messages` as an array of objects
// with a string `role` and string or array `content`); everything else is the upstream's to
// judge and goes as sent. The top-level members' byte spans come along, so that a rewritten
// request replaces only the bytes of `messages` (json/splice.ts).

const KEYS_RECAP_READS = new Set(['model', 'messages', 'system', 'tools', 'max_tokens', 'tool_choice']);

// The same tool definitions and system prompt come with every request of a conversation.
const WHOLE = new Set(['tools', 'system']);

function checkRequest(body: unknown): MessagesRequest {
  const req = objectNamingModel(body);
  if (!Array.isArray(req.messages)) throw errors.invalidRequest('`messages` must be an array of messages.', 'messages');
  req.messages.forEach((m, i) => {
    const message = m as { role?: unknown; content?: unknown } | null;
    if (message === null || typeof message !== 'object' || Array.isArray(message) || typeof message.role !== 'string') {
      throw errors.invalidRequest(`messages.${i} must be an object with a string \`role\`.`, `messages.${i}`);
    }
    if (typeof message.content !== 'string' && !Array.isArray(message.content)) {
      throw errors.invalidRequest(`messages.${i}.content must be a string or an array of content blocks.`, `messages.${i}.content`);
    }
  });
  return req as MessagesRequest;
}

/** The request path's parse, in slices (`pause` between them); messages in the cache of seen items are not parsed again. */
export async function readMessagesRequest(raw: Buffer, pause: Pause, cached?: SeenInput): Promise<MessagesBody> {
  const json = await readJsonBody(raw, pause, cached && { key: 'messages', whole: WHOLE, ...cached });
  if (json.members) refuseDuplicates(json.members, KEYS_RECAP_READS);
  return { ...json, body: checkRequest(json.value) };
}

/** The same in one go, for the CLI (`recap count`, `recap eval`). */
export function parseMessagesRequest(raw: Buffer): MessagesRequest {
  const json = parseJsonBody(raw);
  if (json.members) refuseDuplicates(json.members, KEYS_RECAP_READS);
  return checkRequest(json.value);
}
