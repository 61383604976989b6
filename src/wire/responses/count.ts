import { oncePerItem } from '../../body/once-per-item.js';
import { NO_RUN, noteKeys, type RunNotes } from '../../body/run-notes.js';
import type { ModelConfig } from '../../config/config.js';
import { jsonItemHash } from '../../conversation/canonical.js';
import type { ChatMessage } from '../../messages/types.js';
import type { TokenCounter } from '../../tokens/counter.js';
import type { CountedItems, ItemCounters } from '../format.js';
import { hashJsonItems } from '../hash-items.js';
import { systemMessageOf } from '../system-message.js';
import { asChatMessage } from './items.js';
import type { ResponseItem, ResponsesRequest } from './types.js';

// A Responses request's tokens, counted like a chat request of the same content (the API frames
// items as it frames messages): each `input` item as the chat message it amounts to, `instructions`
// as a leading system message (in every view: it is pinned), and `tools` through the chat route's
// tool rendering (function tools are the chat tools' shape without the `function` wrapper).
// Calibration from the upstream's reported `usage.input_tokens` corrects what this misses.

// One chat message per item object, so that an item seen before finds its count (tokens/counter.ts).
export const countedAs = oncePerItem(asChatMessage);

// The counts of a run's items as this route counts them (the chat route notes its own under the counter).
export const countsKeyOf = noteKeys<TokenCounter>();

/** Function tools in the chat route's shape, so one renderer counts both; other tools as they are. */
function asChatTools(tools: unknown): unknown[] | undefined {
  return Array.isArray(tools) ? chatToolsOf(tools) : undefined;
}

// Once per `tools` array object, so that the counter finds its count (tokens/tools-tokens.ts).
const chatToolsOf = oncePerItem((tools: unknown[]): unknown[] =>
  tools.map((t) => {
    const tool = (t ?? {}) as { type?: unknown; name?: unknown; description?: unknown; parameters?: unknown };
    if (tool.type !== 'function') return t;
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
  }),
);

/** Tokens of `tools` as the request's definitions (with its instructions, which the renderer frames with them). */
export function rawToolsTokens(counter: TokenCounter, body: ResponsesRequest, tools: unknown): number {
  const instructions = instructionsMessage(body);
  return counter.countTools({ model: body.model, messages: instructions ? [instructions] : [], tools: asChatTools(tools) });
}

/** rawToolsTokens of the request's own tools when they were counted before (nothing is rendered), else undefined. */
export function knownRawToolsTokens(counter: TokenCounter, body: ResponsesRequest): number | undefined {
  const instructions = instructionsMessage(body);
  return counter.knownTools({ model: body.model, messages: instructions ? [instructions] : [], tools: asChatTools(body.tools) });
}

/** `instructions` as the leading system message they amount to, or null. */
export function instructionsMessage(body: ResponsesRequest): ChatMessage | null {
  return typeof body.instructions === 'string' && body.instructions !== '' ? systemMessageOf(body.instructions) : null;
}

/** The items of a request: its `input` array, or its string input as one user message. */
export function inputItems(body: ResponsesRequest): ResponseItem[] {
  if (Array.isArray(body.input)) return body.input;
  return typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : [];
}

/** The request path's token service, or what `recap count` makes of one (no calibration). */
export type ItemTokens = ItemCounters;

export async function countResponsesRequest(
  tokens: ItemTokens,
  body: ResponsesRequest,
  model: ModelConfig | undefined,
  run: RunNotes = NO_RUN,
): Promise<CountedItems<ResponseItem> & { instructionsTokens: number; rawTools: number }> {
  const counter = tokens.counterFor(model?.encoding ?? 'o200k_base');
  const scale = tokens.scaleFor(model);
  const items = inputItems(body);
  // Items taken over from an earlier request come with the hashes and counts noted then.
  const taken = Array.isArray(body.input) ? run.taken : 0;
  const hashes = await hashJsonItems(items, taken, run.earlier(jsonItemHash));
  run.note(jsonItemHash, hashes);
  const countsKey = countsKeyOf(counter);
  const earlier = run.earlier<readonly number[]>(countsKey);
  const from = earlier ? taken : 0;
  // The item's own hash keys the token cache: the chat message it amounts to is made only to count
  // it (not for the items whose counts were noted: the counter does not read those).
  const asChat = new Array<ChatMessage>(items.length);
  for (let i = from; i < items.length; i++) asChat[i] = countedAs(items[i]!);
  const counted = await counter.countMessagesAsync(asChat, hashes, from, earlier);
  run.note(countsKey, counted.perMessage);
  const instructions = instructionsMessage(body);
  const rawInstructions = instructions ? counter.countMessage(instructions) : 0;
  const rawTools = rawToolsTokens(counter, body, body.tools);
  const perItem = counted.perMessage.map(scale);
  const priming = counted.total - counted.perMessage.reduce((x, y) => x + y, 0);
  const fixedTokens = priming + scale(rawInstructions);
  const toolsTokens = scale(rawTools);
  const rawIn = counted.total + rawInstructions + rawTools;
  return {
    counter,
    perItem,
    fixedTokens,
    instructionsTokens: scale(rawInstructions),
    hashes,
    countItem: (item) => scale(counter.countMessage(countedAs(item))),
    tokensIn: perItem.reduce((x, y) => x + y, 0) + fixedTokens + toolsTokens,
    toolsTokens,
    rawTools,
    rawOut: (view) => (view ? counter.countMessages(view.map(countedAs)).total + rawInstructions + rawTools : rawIn),
  };
}
