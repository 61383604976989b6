import { isAscii } from 'node:buffer';
import { errors } from '../errors.js';
import type { ResponsesRequest } from './types.js';

/**
 * Parses and checks the few fields recap relies on (`model`, and `input` as a string or an array
 * of item objects); everything else is the upstream's business and is forwarded as sent.
 */
export function parseResponsesRequest(raw: Buffer): ResponsesRequest {
  let body: unknown;
  try {
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
