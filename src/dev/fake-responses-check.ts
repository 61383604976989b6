// The checks OpenAI makes on a Responses `input` array before any model work, with its messages:
// a proxy that separates a tool call from its output, strands a reasoning item or alters the
// fake's encrypted reasoning gets the 400 a real upstream would give, not a polite answer.
import { isTamperedReasoning } from './fake-reasoning.js';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const CALL_OUTPUTS: Record<string, string> = { function_call_output: 'function_call', custom_tool_call_output: 'custom_tool_call' };
const NAMES: Record<string, string> = { function_call: 'function call', custom_tool_call: 'custom tool call' };

export function inputProblem(request: any): OpenAIErrorBody | null {
  const input: unknown = request?.input;
  if (!Array.isArray(input)) return null;
  return wrongType(input) ?? tamperedContent(input) ?? strandedReasoning(input) ?? (referencesStoredState(request, input) ? null : unpairedCall(input));
}

const STRING_FIELDS = ['type', 'role', 'id', 'call_id'] as const;

/** An item's `type`, `role`, `id` or `call_id` that is there but not a string. */
function wrongType(input: any[]): OpenAIErrorBody | null {
  for (const [i, item] of input.entries()) {
    const field = STRING_FIELDS.find((f) => item?.[f] !== undefined && item[f] !== null && typeof item[f] !== 'string');
    if (field === undefined) continue;
    const got = Array.isArray(item[field]) ? 'an array' : typeof item[field] === 'object' ? 'an object' : `a ${typeof item[field]}`;
    return invalid(`Invalid type for 'input[${i}].${field}': expected a string, but got ${got} instead.`, `input[${i}].${field}`, 'invalid_type');
  }
  return null;
}

function tamperedContent(input: any[]): OpenAIErrorBody | null {
  const item = input.find((i) => i?.type === 'reasoning' && typeof i.encrypted_content === 'string' && isTamperedReasoning(i.encrypted_content));
  if (item === undefined) return null;
  const content: string = item.encrypted_content;
  return invalid(`The encrypted content ${content.slice(0, 4)}...${content.slice(-4)} could not be verified.`, null, 'invalid_encrypted_content');
}

/** A reasoning item belongs to the output item that follows it (a message or a tool call of the same turn). */
function strandedReasoning(input: any[]): OpenAIErrorBody | null {
  const index = input.findIndex((item, i) => item?.type === 'reasoning' && !isModelOutput(input[i + 1]));
  if (index === -1) return null;
  return invalid(`Item '${input[index].id}' of type 'reasoning' was provided without its required following item.`, 'input');
}

function isModelOutput(item: any): boolean {
  const type = item?.type ?? (typeof item?.role === 'string' ? 'message' : undefined);
  if (type === 'message') return item.role === 'assistant';
  return typeof type === 'string' && type.endsWith('_call');
}

/** With previous_response_id, a conversation or item references, the calls may live on the server. */
function referencesStoredState(request: any, input: any[]): boolean {
  return request.previous_response_id != null || request.conversation != null || input.some((i) => i?.type === 'item_reference');
}

/** Every tool output answers a call made before it, and every call has its output. */
function unpairedCall(input: any[]): OpenAIErrorBody | null {
  const calls = new Map<string, string>();
  const unanswered = new Set<string>();
  for (const item of input) {
    const id = String(item?.call_id);
    if (NAMES[item?.type] !== undefined) {
      calls.set(id, item.type);
      unanswered.add(id);
    }
    const callType = CALL_OUTPUTS[item?.type];
    if (callType === undefined) continue;
    if (calls.get(id) !== callType) return invalid(`No tool call found for ${NAMES[callType]} output with call_id ${id}.`, 'input');
    unanswered.delete(id);
  }
  const [first] = unanswered;
  return first === undefined ? null : invalid(`No tool output found for ${NAMES[calls.get(first)!]} ${first}.`, 'input');
}

function invalid(message: string, param: string | null, code: string | null = null): OpenAIErrorBody {
  return { error: { message, type: 'invalid_request_error', param, code } };
}
