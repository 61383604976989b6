import { getEncoding } from 'js-tiktoken';
import { countRequest } from '../../src/tokens/count-request.js';

// What a Responses API request costs, worked out here from js-tiktoken and the rules docs/routes.md states,
// independently of recap's counter: each `input` item is counted as the chat message it amounts to
// (the cookbook's num_tokens_from_messages: 3 tokens of framing, the role, each text), `instructions`
// as a leading system message, 3 tokens priming the reply. A tool call costs its name, its arguments
// and 3 tokens (hmarr/openai-chat-tokens); a tool output is a `tool` message of its output;
// reasoning is the assistant's, counted by its summary and encrypted content. Images cost 85 tokens
// at `detail: low` and 765 (a 1024x1024 image) otherwise, files 1024, audio 256 (docs/routes.md).

type Encoding = 'o200k_base' | 'cl100k_base';
type Item = Record<string, unknown>;

const encoders = new Map<Encoding, ReturnType<typeof getEncoding>>();
function tokens(text: unknown, encoding: Encoding): number {
  if (typeof text !== 'string' || text === '') return 0;
  let enc = encoders.get(encoding);
  if (!enc) encoders.set(encoding, (enc = getEncoding(encoding)));
  return enc.encode(text).length;
}

const FRAMING = 3;
const PRIMING = 3;
const CALL = 3;

function partTokens(part: Item, encoding: Encoding): number {
  if (typeof part.text === 'string') return tokens(part.text, encoding);
  if (typeof part.refusal === 'string') return tokens(part.refusal, encoding);
  if (part.type === 'input_image') return part.detail === 'low' ? 85 : 765;
  if (part.type === 'input_file') return 1024;
  return 256;
}

function contentTokens(content: unknown, encoding: Encoding): number {
  if (typeof content === 'string') return tokens(content, encoding);
  return Array.isArray(content) ? content.reduce((n: number, p: Item) => n + partTokens(p, encoding), 0) : 0;
}

function message(role: string, body: number, encoding: Encoding): number {
  return FRAMING + tokens(role, encoding) + body;
}

/** One `input` item. */
export function itemTokens(item: Item, encoding: Encoding = 'o200k_base'): number {
  const type = (item.type as string | undefined) ?? 'message';
  if (type === 'message') return message(String(item.role), contentTokens(item.content, encoding), encoding);
  if (type === 'function_call') return message('assistant', tokens(item.name, encoding) + tokens(item.arguments, encoding) + CALL, encoding);
  if (type === 'custom_tool_call') return message('assistant', tokens(item.name, encoding) + tokens(item.input, encoding) + CALL, encoding);
  if (type.endsWith('_output')) return message('tool', typeof item.output === 'string' ? tokens(item.output, encoding) : contentTokens(item.output, encoding), encoding);
  if (type === 'reasoning') {
    const summary = ((item.summary as Item[] | undefined) ?? []).map((s) => String(s.text));
    return message('assistant', tokens([...summary, item.encrypted_content ?? ''].filter(Boolean).join('\n'), encoding), encoding);
  }
  throw new Error(`the oracle does not count ${type} items`);
}

/** `input` and `instructions` with the reply priming: the prompt without its tool definitions. */
export function responsesPromptTokens(body: { instructions?: unknown; input?: unknown }, encoding: Encoding = 'o200k_base'): number {
  const input: Item[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : ((body.input as Item[] | undefined) ?? []);
  const instructions = typeof body.instructions === 'string' && body.instructions !== '' ? message('system', tokens(body.instructions, encoding), encoding) : 0;
  return PRIMING + instructions + input.reduce((n, item) => n + itemTokens(item, encoding), 0);
}

/** Responses function tools as the chat route receives them: the same definition inside `function`. */
export function chatFormTools(tools: readonly Item[]): Item[] {
  return tools.map((t) => (t.type === 'function' ? { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } } : t));
}

/** The tools' tokens as the chat route counts the same definitions (with `instructions` as its system message). */
export function chatToolsTokens(instructions: string | undefined, tools: readonly Item[]): number {
  const messages = instructions ? [{ role: 'system', content: instructions }] : [];
  return countRequest({ model: 'm', messages, tools: chatFormTools(tools) }, undefined).tools_tokens;
}
