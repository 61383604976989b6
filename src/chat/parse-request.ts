import { isAscii } from 'node:buffer';
import { errors } from '../errors.js';
import { messageShapeProblem } from './message-shape.js';
import type { ChatRequest } from './types.js';

/**
 * Parses and checks the few fields recap relies on; everything else is the upstream's business
 * and is forwarded as the client sent it.
 */
export function parseChatRequest(raw: Buffer): ChatRequest {
  let body: unknown;
  try {
    // Most bodies are ASCII (JSON escapes the rest): read as one-byte text, which parses faster.
    body = JSON.parse(isAscii(raw) ? raw.toString('latin1') : raw.toString('utf8'));
  } catch (err) {
    throw errors.invalidJson((err as Error).message);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.invalidRequest('The request body must be a JSON object.');
  }
  const req = body as Record<string, unknown>;
  if (typeof req.model !== 'string' || req.model === '') {
    throw errors.invalidRequest('`model` must be a non-empty string.', 'model');
  }
  if (!Array.isArray(req.messages)) {
    throw errors.invalidRequest('`messages` must be an array of messages.', 'messages');
  }
  req.messages.forEach((m, i) => {
    if (m === null || typeof m !== 'object' || Array.isArray(m) || typeof (m as { role?: unknown }).role !== 'string') {
      throw errors.invalidRequest(`messages[${i}] must be an object with a string \`role\`.`, `messages[${i}]`);
    }
    const problem = messageShapeProblem(m as Record<string, unknown>);
    if (problem) throw errors.invalidRequest(`messages[${i}].${problem.field} ${problem.message}.`, `messages[${i}].${problem.field}`);
  });
  return req as ChatRequest;
}
