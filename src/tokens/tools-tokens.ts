import type { ChatRequest } from '../messages/types.js';
import { type ObjectNote, objectNote } from '../body/object-notes.js';
import { stringifyJson } from '../body/stringify.js';
import type { TextTokenizer } from './encodings.js';
import { renderFunctionNamespace, type FunctionDefinition } from './tools-render.js';

// Tokens that a request's tool definitions and response format add to the prompt, beyond its
// messages.
//
// Functions (`tools` of type function and legacy `functions`) are rendered into OpenAI's
// TypeScript-like namespace (tools-render.ts) and counted, plus TOOLS_FRAMING_TOKENS for the
// framing around it. When the request has a system message, the API puts the tool text into it
// instead of a message of its own: that saves SYSTEM_MERGE_SAVING tokens of framing and adds the
// newline that ends the system text (0 tokens if it merges with the text's last token, as in
// ":\n"). These constants were inferred by hmarr/openai-chat-tokens from the API's counts.
//
// Measured error, whole prompt (messages + tools) against published prompt_tokens
// (tools-tokens.test.ts): 0 tokens on all 19 fixtures of hmarr/openai-chat-tokens (gpt-3.5-turbo,
// cl100k_base; 9 of them with function definitions, incl. nested objects, enums, arrays, optional params and
// system messages) and 0 on the OpenAI cookbook's tool example (105 on gpt-4 / cl100k_base, 101 on
// gpt-4o / o200k_base). Schema features those fixtures do not cover ($ref, anyOf, defaults,
// several functions at once) follow the same rendering but are unmeasured.
//
// Other tool types (custom, built-in) have no published rendering: their JSON is counted.
//
// `response_format: json_schema` is counted as the schema's compact JSON without the keys the
// model is not shown (`required`, `additionalProperties`, `$schema`) plus 9 tokens, the rule
// reported to match the API in openai/openai-cookbook#2140; no reference counts were available to
// measure it here. `json_object` is counted as adding nothing.

const TOOLS_FRAMING_TOKENS = 9;
const SYSTEM_MERGE_SAVING = 4;
const RESPONSE_FORMAT_FRAMING_TOKENS = 9;
const HIDDEN_SCHEMA_KEYS = new Set(['required', 'additionalProperties', '$schema']);

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function asFunction(v: unknown): FunctionDefinition | undefined {
  if (!isObj(v) || typeof v.name !== 'string') return undefined;
  return { name: v.name, description: typeof v.description === 'string' ? v.description : undefined, parameters: v.parameters };
}

/** Function definitions from `tools` and `functions`, and the tools that are not functions. */
function splitTools(req: ChatRequest): { functions: FunctionDefinition[]; others: unknown[] } {
  const functions: FunctionDefinition[] = [];
  const others: unknown[] = [];
  for (const tool of Array.isArray(req.tools) ? req.tools : []) {
    const fn = isObj(tool) && tool.type === 'function' ? asFunction(tool.function) : undefined;
    if (fn) functions.push(fn);
    else others.push(tool);
  }
  for (const f of Array.isArray(req.functions) ? req.functions : []) {
    const fn = asFunction(f);
    if (fn) functions.push(fn);
  }
  return { functions, others };
}

// Deeper than this (real schemas nest a few levels, a client may send thousands) a schema is
// counted as it is, hidden keywords included, so that this walk never recurses without bound.
const MAX_SCHEMA_DEPTH = 64;

/** The schema as the model sees it: keywords it is not shown dropped, property names kept. */
function visibleSchema(schema: unknown, inProperties = false, depth = 0): unknown {
  if (depth > MAX_SCHEMA_DEPTH) return schema;
  if (Array.isArray(schema)) return schema.map((s) => visibleSchema(s, false, depth + 1));
  if (!isObj(schema)) return schema;
  const out: Obj = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!inProperties && HIDDEN_SCHEMA_KEYS.has(key)) continue;
    out[key] = visibleSchema(value, !inProperties && key === 'properties', depth + 1);
  }
  return out;
}

function responseFormatText(format: unknown): string | undefined {
  if (!isObj(format) || format.type !== 'json_schema' || !isObj(format.json_schema)) return undefined;
  return stringifyJson(visibleSchema(format.json_schema.schema ?? {}));
}

// Only the end of the system text can merge with the newline; counting a tail that starts at a
// safe cut (split.ts) gives the same difference as counting the whole text twice. A text with no
// safe cut near its end (one huge word) is assumed to take the newline as a token of its own.
const TAIL_CHARS = 64;
const MAX_TAIL_CHARS = 4096;

function newlinePaddingTokens(content: unknown, tokenizer: TextTokenizer): number {
  if (typeof content !== 'string') return 1;
  const floor = Math.max(0, content.length - MAX_TAIL_CHARS);
  let start = Math.max(0, content.length - TAIL_CHARS);
  while (start > floor && !tokenizer.isSafeCut(content, start)) start--;
  if (start > 0 && !tokenizer.isSafeCut(content, start)) return 1;
  const tail = content.slice(start);
  return tokenizer.count(`${tail}\n`) - tokenizer.count(tail);
}

// Per tokenizer and system message object: the same message comes back as the same object with
// every request that sends its bytes (body/seen-items.ts), and forward-first, reuse-first and the
// count each ask; its two tokenizer calls took 6-30 µs each time.
const paddingByTokenizer = new WeakMap<TextTokenizer, ObjectNote<object, number>>();

function systemPaddingTokens(system: { content?: unknown }, tokenizer: TextTokenizer): number {
  let notes = paddingByTokenizer.get(tokenizer);
  if (!notes) {
    notes = objectNote();
    paddingByTokenizer.set(tokenizer, notes);
  }
  let padding = notes.get(system);
  if (padding === undefined) {
    padding = newlinePaddingTokens(system.content, tokenizer);
    notes.set(system, padding);
  }
  return padding;
}

function systemMergeTokens(req: ChatRequest, tokenizer: TextTokenizer): number {
  const system = Array.isArray(req.messages) ? req.messages.find((m) => m?.role === 'system') : undefined;
  return system === undefined ? 0 : systemPaddingTokens(system, tokenizer) - SYSTEM_MERGE_SAVING;
}

/** The tokens of the definitions themselves (without the merge into the system message), and whether there are functions. */
interface Definitions {
  tokens: number;
  functions: boolean;
}

function definitionsTokens(req: ChatRequest, tokenizer: TextTokenizer): Definitions {
  const { functions, others } = splitTools(req);
  let tokens = functions.length > 0 ? tokenizer.count(renderFunctionNamespace(functions)) + TOOLS_FRAMING_TOKENS : 0;
  for (const tool of others) tokens += tokenizer.count(stringifyJson(tool));
  return { tokens, functions: functions.length > 0 };
}

// Per tokenizer and `tools` array object, when there are no legacy `functions`: the same `tools`
// comes back as the same object with every request that sends its bytes (body/seen-items.ts), and
// rendering and tokenizing five tools took ~1 ms per request.
const byTools = new WeakMap<TextTokenizer, WeakMap<object, Definitions>>();

function toolsDefinitions(req: ChatRequest, tokenizer: TextTokenizer): Definitions {
  if (!Array.isArray(req.tools) || Array.isArray(req.functions)) return definitionsTokens(req, tokenizer);
  let known = byTools.get(tokenizer);
  if (!known) {
    known = new WeakMap();
    byTools.set(tokenizer, known);
  }
  let defs = known.get(req.tools);
  if (!defs) {
    defs = definitionsTokens(req, tokenizer);
    known.set(req.tools, defs);
  }
  return defs;
}

/**
 * The request's definitions' tokens when working them out costs no rendering: there are none, or
 * its `tools` were counted before (then only the merge into the system message and any
 * `response_format` are counted). Undefined otherwise.
 */
export function knownToolsTokens(req: ChatRequest, tokenizer: TextTokenizer): number | undefined {
  const none = req.tools === undefined && req.functions === undefined;
  if (!none && (!Array.isArray(req.tools) || Array.isArray(req.functions) || !byTools.get(tokenizer)?.has(req.tools))) return undefined;
  return toolsTokens(req, tokenizer);
}

export function toolsTokens(req: ChatRequest, tokenizer: TextTokenizer): number {
  const defs = toolsDefinitions(req, tokenizer);
  let tokens = defs.tokens + (defs.functions ? systemMergeTokens(req, tokenizer) : 0);
  const format = responseFormatText(req.response_format);
  if (format !== undefined) tokens += tokenizer.count(format) + RESPONSE_FORMAT_FRAMING_TOKENS;
  return tokens;
}
