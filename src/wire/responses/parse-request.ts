import { type JsonBody, objectNamingModel, parseJsonBody, readJsonBody, refuseDuplicates } from '../../body/json-body.js';
import { errors } from '../../errors.js';
import type { Pause } from '../../slicing/slicer.js';
import type { SeenInput } from '../format.js';
import type { ResponsesRequest } from './types.js';

// Parses and checks the few fields recap relies on (`model`, and `input` as a string or an array
// of item objects); everything else is the upstream's business and is forwarded as sent. The
// top-level members' byte spans come along, so that a rewritten request replaces only the bytes of
// `input` (body/splice.ts).

export interface ResponsesBody extends JsonBody {
  body: ResponsesRequest;
}

// The top-level keys whose value changes what recap does with a Responses request.
const KEYS_RECAP_READS = new Set(['model', 'input', 'instructions', 'tools', 'max_output_tokens', 'previous_response_id', 'conversation']);

// The same tool definitions come with every request of a conversation: taken whole from the cache too.
const WHOLE = new Set(['tools']);

/** The request path's parse, in slices (`pause` between them); input items in the cache of seen items are not parsed again. */
export async function readResponsesRequest(raw: Buffer, pause: Pause, cached?: SeenInput): Promise<ResponsesBody> {
  const json = await readJsonBody(raw, pause, cached && { key: 'input', whole: WHOLE, ...cached });
  if (json.members) refuseDuplicates(json.members, KEYS_RECAP_READS);
  return { ...json, body: checkRequest(json.value) };
}

/** The same in one go, for a body the CLI read from a file. */
export function parseResponsesRequest(raw: Buffer): ResponsesRequest {
  const json = parseJsonBody(raw);
  if (json.members) refuseDuplicates(json.members, KEYS_RECAP_READS);
  return checkRequest(json.value);
}

function checkRequest(body: unknown): ResponsesRequest {
  const req = objectNamingModel(body);
  const { input } = req;
  if (input !== undefined && typeof input !== 'string' && !Array.isArray(input)) {
    throw errors.invalidRequest('`input` must be a string or an array of input items.', 'input');
  }
  if (Array.isArray(input)) {
    input.forEach((item, i) => {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        throw errors.invalidRequest(`input[${i}] must be an object.`, `input[${i}]`);
      }
    });
  }
  return req as ResponsesRequest;
}

/**
 * Whether recap may compact the request: a stateless `input` array. A request that names
 * `previous_response_id` or `conversation` has its history kept by the provider, and a plain string
 * input has none: both are forwarded untouched.
 */
export function isCompactable(body: ResponsesRequest): boolean {
  const present = (v: unknown) => v !== undefined && v !== null;
  return Array.isArray(body.input) && !present(body.previous_response_id) && !present(body.conversation);
}
