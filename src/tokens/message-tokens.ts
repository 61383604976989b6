import type { ChatMessage, ImagePart } from '../messages/types.js';
import { imageTokens } from './image-tokens.js';

// How one chat message turns into tokens, following OpenAI's cookbook (`num_tokens_from_messages`,
// reproduced exactly in counter.test.ts): every message costs 3 tokens of framing
// (`<|start|>{role}<|message|>...<|end|>`) plus the tokens of its role and content; a `name` costs
// its tokens plus 1. The 3 tokens that prime the reply are added once per request (counter.ts).
//
// Only the fields of the canonical form (conversation/canonical.ts) are read, because the token
// cache is keyed by that form: two messages with one canonical form must count alike.

const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
export const REPLY_PRIMING_TOKENS = 3;

// A tool call is rendered as a message addressed to the function (`to=functions.{name}`) with the
// arguments as its body; hmarr/openai-chat-tokens measured 3 tokens of framing on top of the name
// and the arguments for a legacy `function_call`, and we apply the same to each of `tool_calls`.
const TOKENS_PER_TOOL_CALL = 3;

// A legacy `function` result message has the function's name in place of the role, which saves 2
// tokens against a message with both (measured by hmarr/openai-chat-tokens). A `tool` result is
// rendered under the called function's name too, but that name is not in the message: we count
// the role `tool` in its place, and do not count `tool_call_id`, which the model never sees.
const FUNCTION_RESULT_ADJUSTMENT = -2;

// Parts whose cost depends on media recap does not decode: a fixed guess that the per-model
// calibration corrects. Audio input is billed about 10 tokens per second, so 256 tokens is ~25 s
// of speech; a file (PDF) is billed as its extracted text plus page images, 1024 tokens is a
// page or two.
const AUDIO_PART_TOKENS = 256;
const FILE_PART_TOKENS = 1024;
const OTHER_PART_TOKENS = 256;

/** The texts of a message to tokenize, and the tokens it costs beyond them. */
export interface MessageCost {
  texts: string[];
  fixedTokens: number;
}

function isString(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

function addContent(content: unknown, cost: MessageCost): void {
  if (typeof content === 'string') {
    if (content.length > 0) cost.texts.push(content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content as Array<Record<string, unknown>>) {
    if (part === null || typeof part !== 'object') continue;
    if (isString(part.text)) cost.texts.push(part.text);
    else if (isString(part.refusal)) cost.texts.push(part.refusal);
    else if (part.type === 'image_url') cost.fixedTokens += imageTokens(part as unknown as ImagePart);
    else if (part.type === 'input_audio') cost.fixedTokens += AUDIO_PART_TOKENS;
    else if (part.type === 'file') cost.fixedTokens += FILE_PART_TOKENS;
    else if (part.type !== 'text') cost.fixedTokens += OTHER_PART_TOKENS;
  }
}

function addCall(call: unknown, cost: MessageCost): void {
  const fn = (call as { name?: unknown; arguments?: unknown } | null) ?? {};
  if (isString(fn.name)) cost.texts.push(fn.name);
  if (isString(fn.arguments)) cost.texts.push(fn.arguments);
  cost.fixedTokens += TOKENS_PER_TOOL_CALL;
}

export function messageCost(m: ChatMessage): MessageCost {
  const cost: MessageCost = { texts: [], fixedTokens: TOKENS_PER_MESSAGE };
  if (isString(m.role)) cost.texts.push(m.role);
  if (isString(m.name)) {
    cost.texts.push(m.name);
    cost.fixedTokens += TOKENS_PER_NAME;
  }
  if (m.role === 'function') cost.fixedTokens += FUNCTION_RESULT_ADJUSTMENT;
  addContent(m.content, cost);
  if (Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls) addCall((call as { function?: unknown } | null)?.function, cost);
  }
  if (m.function_call !== null && typeof m.function_call === 'object') addCall(m.function_call, cost);
  return cost;
}

/** Whether every part of a message's content is text: its tokens are then its texts' and its framing, none a media part's guess. */
export function textOnly(m: ChatMessage): boolean {
  return !Array.isArray(m.content) || m.content.every((p) => (p as { type?: unknown }).type === 'text');
}
