import { type JsonBody, objectNamingModel, parseJsonBody, readJsonBody, refuseDuplicates } from '../../body/json-body.js';
import { oncePerItem } from '../../body/once-per-item.js';
import { primeMessageHash } from '../../conversation/canonical.js';
import { errors } from '../../errors.js';
import type { ChatRequest } from '../../messages/types.js';
import { type Pause, runSliced, runSync, STEP_EVERY, type Steps } from '../../slicing/slicer.js';
import type { SeenInput } from '../format.js';
import { messageShapeProblem } from './message-shape.js';

// Parses and checks the few fields recap relies on; everything else is the upstream's business
// and is forwarded as the client sent it. The top-level members' byte spans come along, so that a
// rewritten request replaces only the bytes of `messages` (body/splice.ts).

/** A parsed chat body and where its top-level members sit in the client's bytes. */
export interface ChatBody extends JsonBody {
  body: ChatRequest;
}

// The top-level keys whose value changes what recap does with a chat request.
const KEYS_RECAP_READS = new Set(['model', 'messages', 'max_tokens', 'max_completion_tokens', 'tools', 'functions', 'response_format']);

// Once per message object: a message seen before comes back as the same object (body/seen-items.ts).
const shapeProblemOf = oncePerItem(messageShapeProblem);

/**
 * `checked`: how many leading messages were checked already (taken over from an earlier request
 * that passed). A step per message: 60k tool steps of new messages held the event loop ~50 ms here
 * in one go (the hardening bench), the first note on each message object being the slow part.
 */
export function* checkRequestSteps(body: unknown, checked = 0): Steps<ChatRequest> {
  const req = objectNamingModel(body);
  if (!Array.isArray(req.messages)) {
    throw errors.invalidRequest('`messages` must be an array of messages.', 'messages');
  }
  const messages: unknown[] = req.messages;
  for (let i = checked; i < messages.length; i++) {
    const m = messages[i];
    if (m === null || typeof m !== 'object' || Array.isArray(m) || typeof (m as { role?: unknown }).role !== 'string') {
      throw errors.invalidRequest(`messages[${i}] must be an object with a string \`role\`.`, `messages[${i}]`);
    }
    const problem = shapeProblemOf(m as Record<string, unknown>);
    if (problem) throw errors.invalidRequest(`messages[${i}].${problem.field} ${problem.message}.`, `messages[${i}].${problem.field}`);
    if (i % STEP_EVERY === 0) yield;
  }
  return req as ChatRequest;
}

// The same tool definitions come with every request of a conversation: taken whole from the cache too.
const WHOLE = new Set(['tools']);

// A message this big gets its canonical hash worked out here, in slices: the request path hashes
// messages synchronously (identifying, counting), and hashing 200k tool calls or a 300k-key part
// in one go held the event loop for 0.5-1 s, a 15 MB pasted log for 60 ms.
const PRIMED_MESSAGE_BYTES = 64 * 1024;

/** The request path's parse, in slices (`pause` between them); messages in the cache of seen items are not parsed again. */
export async function readChatRequest(raw: Buffer, pause: Pause, cached?: SeenInput): Promise<ChatBody> {
  const json = await readJsonBody(raw, pause, cached && { key: 'messages', whole: WHOLE, ...cached });
  if (json.members) refuseDuplicates(json.members, KEYS_RECAP_READS);
  // Messages taken over from an earlier request that passed were checked and primed then.
  const known = (json.run?.earlier<number>(shapeProblemOf) ?? 0) >= (json.run?.taken ?? 0) ? (json.run?.taken ?? 0) : 0;
  const body = await runSliced(checkRequestSteps(json.value, known), pause);
  // The check found exactly one `messages`, an array. Only a walked array has element spans; a
  // smaller one holds no message worth it. A message seen before has its hash already.
  const spans = json.members!.find((m) => m.key === 'messages')!.elements ?? [];
  for (let i = known; i < spans.length; i++) {
    if (spans[i]!.end - spans[i]!.start > PRIMED_MESSAGE_BYTES) await primeMessageHash(body.messages[i]!, pause);
  }
  json.run?.note(shapeProblemOf, body.messages.length);
  return { ...json, body };
}

/** The same checks in one go, for the CLI (`recap count`, `recap eval`). */
export function parseChatRequest(raw: Buffer): ChatRequest {
  const json = parseJsonBody(raw);
  if (json.members) refuseDuplicates(json.members, KEYS_RECAP_READS);
  return runSync(checkRequestSteps(json.value));
}
