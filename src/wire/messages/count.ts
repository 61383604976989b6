import { oncePerItem } from '../../body/once-per-item.js';
import { NO_RUN, noteKeys, type RunNotes } from '../../body/run-notes.js';
import { stringifyJson } from '../../body/stringify.js';
import type { ModelConfig } from '../../config/config.js';
import { jsonItemHash } from '../../conversation/canonical.js';
import type { ChatMessage } from '../../messages/types.js';
import type { TokenCounter } from '../../tokens/counter.js';
import type { CountedItems, ItemCounters } from '../format.js';
import { hashJsonItems } from '../hash-items.js';
import { systemMessageOf } from '../system-message.js';
import { blocksOf } from './items.js';
import { mediaTokens } from './media-tokens.js';
import type { AnthropicMessage, ContentBlock, MessagesRequest } from './types.js';

// A Messages request's tokens. Anthropic publishes no tokenizer: models on this route count with
// `encoding: estimate`, calibrated per model from the usage Anthropic reports (input_tokens +
// cache_creation_input_tokens + cache_read_input_tokens). Each message counts as the chat message
// of the same text: its text blocks, thinking (text and redacted data: a turn's thinking is sent
// back and may count), tool inputs and results; images and documents by Anthropic's own rules
// (media-tokens.ts). `system` is counted as a leading system message (pinned: in every view) and
// `tools` through the chat route's tool rendering (an Anthropic tool is a function's name,
// description and input schema), both part of the budget (rule 3).

function blockText(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? b.text : '';
    case 'thinking':
      return typeof b.thinking === 'string' ? b.thinking : '';
    case 'redacted_thinking':
      return typeof b.data === 'string' ? b.data : '';
    case 'tool_use':
    case 'server_tool_use':
      return `${String(b.name)} ${stringifyJson(b.input ?? {})}`;
    case 'tool_result':
      return typeof b.content === 'string'
        ? b.content
        : Array.isArray(b.content)
          ? b.content.map((c) => (c && typeof c === 'object' ? blockText(c as ContentBlock) : '')).join('\n')
          : '';
    case 'image':
      return '';
    case 'document': {
      const source = b.source as { type?: unknown; data?: unknown; content?: unknown } | undefined;
      if (source?.type === 'text' && typeof source.data === 'string') return source.data;
      if (source?.type === 'content' && Array.isArray(source.content)) return source.content.map((c) => blockText(c as ContentBlock)).join('\n');
      return '';
    }
    default: {
      // A block recap does not know (web_search_tool_result, …): its JSON, as sent.
      const { type: _type, cache_control: _cc, ...rest } = b;
      return stringifyJson(rest);
    }
  }
}

/** The message as a chat message of the same text, to count it (media apart). */
export const countedAs = oncePerItem(
  (m: AnthropicMessage): ChatMessage => ({
    role: m.role,
    content: typeof m.content === 'string' ? m.content : blocksOf(m).map(blockText).filter(Boolean).join('\n'),
  }),
);

export const mediaOf = oncePerItem((m: AnthropicMessage): number => (Array.isArray(m.content) ? mediaTokens(m.content) : 0));

// A run's notes as this route makes them (the chat route notes its own counts under the counter:
// the same message object counts differently as a chat message).
export const MEDIA_NOTE = {};
export const countsKeyOf = noteKeys<TokenCounter>();

// Once per `system` array object: the same blocks come back as the same object with every request
// that sends their bytes (parse-request.ts takes `system` whole from the seen items).
const systemOfBlocks = oncePerItem((system: unknown[]): ChatMessage | null => {
  const text = system.map((b) => (b && typeof b === 'object' ? blockText(b as ContentBlock) : '')).join('\n');
  return text === '' ? null : systemMessageOf(text);
});

/** `system` as the leading system message it amounts to, or null: one object per text sent lately (wire/system-message.ts). */
export function systemMessage(body: MessagesRequest): ChatMessage | null {
  const { system } = body;
  if (typeof system === 'string') return system === '' ? null : systemMessageOf(system);
  return Array.isArray(system) ? systemOfBlocks(system) : null;
}

/** Anthropic tools in the chat route's shape, so one renderer counts both; server tools as they are. */
const chatToolsOf = oncePerItem((tools: unknown[]): unknown[] =>
  tools.map((t) => {
    const tool = (t ?? {}) as { type?: unknown; name?: unknown; description?: unknown; input_schema?: unknown };
    if (tool.input_schema === undefined) return t;
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.input_schema } };
  }),
);

/** rawToolsTokens of the request's own tools when they were counted before (nothing is rendered), else undefined. */
export function knownRawToolsTokens(counter: TokenCounter, body: MessagesRequest): number | undefined {
  const { tools } = body;
  return Array.isArray(tools) && tools.length > 0 ? counter.knownTools({ model: body.model, messages: [], tools: chatToolsOf(tools) }) : 0;
}

export function rawToolsTokens(counter: TokenCounter, body: MessagesRequest, tools: unknown): number {
  return Array.isArray(tools) && tools.length > 0 ? counter.countTools({ model: body.model, messages: [], tools: chatToolsOf(tools) }) : 0;
}

export async function countMessagesRequest(
  tokens: ItemCounters,
  body: MessagesRequest,
  model: ModelConfig | undefined,
  run: RunNotes = NO_RUN,
): Promise<CountedItems<AnthropicMessage> & { systemTokens: number; rawTools: number }> {
  const counter = tokens.counterFor(model?.encoding ?? 'o200k_base');
  const scale = tokens.scaleFor(model);
  const items = body.messages;
  // Messages taken over from an earlier request come with the hashes, counts and media noted then.
  const hashes = await hashJsonItems(items, run.taken, run.earlier(jsonItemHash));
  run.note(jsonItemHash, hashes);
  const countsKey = countsKeyOf(counter);
  const earlierCounts = run.earlier<readonly number[]>(countsKey);
  const earlierMedia = run.earlier<readonly number[]>(MEDIA_NOTE);
  const from = earlierCounts && earlierMedia ? run.taken : 0;
  // The chat message an item amounts to is made only to count it: not for those whose counts were noted.
  const asChat = new Array<ChatMessage>(items.length);
  for (let i = from; i < items.length; i++) asChat[i] = countedAs(items[i]!);
  const counted = await counter.countMessagesAsync(asChat, hashes, from, from > 0 ? earlierCounts : undefined);
  const media = from > 0 ? earlierMedia!.slice(0, from) : [];
  for (let i = media.length; i < items.length; i++) media.push(mediaOf(items[i]!));
  run.note(countsKey, counted.perMessage);
  run.note(MEDIA_NOTE, media);
  const rawPerItem = counted.perMessage.map((n, i) => n + media[i]!);
  const system = systemMessage(body);
  const rawSystem = system ? counter.countMessage(system) : 0;
  const rawTools = rawToolsTokens(counter, body, body.tools);
  const priming = counted.total - counted.perMessage.reduce((x, y) => x + y, 0);
  const perItem = rawPerItem.map(scale);
  const fixedTokens = priming + scale(rawSystem);
  const toolsTokens = scale(rawTools);
  const rawItems = (ms: readonly AnthropicMessage[]) => counter.countMessages(ms.map(countedAs)).total + ms.reduce((n, m) => n + mediaOf(m), 0);
  const rawIn = counted.total + rawPerItem.reduce((x, y) => x + y, 0) - counted.perMessage.reduce((x, y) => x + y, 0) + rawSystem + rawTools;
  return {
    counter,
    perItem,
    fixedTokens,
    systemTokens: scale(rawSystem),
    hashes,
    countItem: (item) => scale(counter.countMessage(countedAs(item)) + mediaOf(item)),
    tokensIn: perItem.reduce((x, y) => x + y, 0) + fixedTokens + toolsTokens,
    toolsTokens,
    rawTools,
    rawOut: (view) => (view ? rawItems(view) + rawSystem + rawTools : rawIn),
  };
}
