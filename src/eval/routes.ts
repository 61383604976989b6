import type { ChatMessage } from '../messages/types.js';
import { asChatMessage, describeResponseItem } from '../wire/responses/items.js';
import type { ResponseItem } from '../wire/responses/types.js';
import { asChatMessage as messageAsChat, describeAnthropicMessage } from '../wire/messages/items.js';
import type { AnthropicMessage } from '../wire/messages/types.js';

// The wire formats `recap eval` can read a conversation in: a chat request body (`messages`)
// goes through /v1/chat/completions, a stateless Responses body (`input` items) through
// /v1/responses, an Anthropic Messages body through /v1/messages. Each says where it is sent, how its items read as chat messages (for probes,
// aligned with the items recap's checkpoints count), and how a probe is asked and answered.

export type EvalBody = Record<string, unknown> & { model: string };

export interface EvalRoute {
  name: 'chat' | 'responses' | 'messages';
  /** recap's path for it, and the upstream's (after its base_url). */
  path: string;
  upstreamPath: string;
  /** The inspection endpoint's query for this route's records. */
  inspectQuery: string;
  /** The conversation's items, read as chat messages, one per item. */
  messages(body: EvalBody): ChatMessage[];
  /** How many leading items are pinned instructions (checkpoint indices count from after them). */
  pinned(body: EvalBody): number;
  /**
   * The conversation with the probe as its last user message. `none`: the client's tools may not
   * be called (a tool call would not answer it); `auto`: they may, as an agent asks, so that recap
   * offers recap_recall (it does not beside tool_choice none).
   */
  withProbe(body: EvalBody, question: string, tools?: 'none' | 'auto'): EvalBody;
  /** The model's text in a reply ('' when it called tools or said nothing). */
  answerText(reply: unknown): string;
  /** Input plus output tokens of the reply's usage, or null without one. */
  usageTokens(reply: unknown): number | null;
  /** The headers that carry `key` to the upstream itself (the full-history baseline). */
  directHeaders(key: string): Record<string, string>;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The probe's tool_choice: none or auto where the body offers tools; none at all without tools (an upstream refuses a tool_choice alone). */
function withToolChoice(body: EvalBody, tools: 'none' | 'auto'): EvalBody {
  const { tool_choice: _choice, ...rest } = body;
  const offers = Array.isArray(body.tools) && body.tools.length > 0;
  return (offers ? { ...rest, tool_choice: tools } : rest) as EvalBody;
}

function usageTotal(reply: unknown, input: string, output: string): number | null {
  const usage = (reply as { usage?: Record<string, unknown> } | null)?.usage;
  const a = usage?.[input];
  const b = usage?.[output];
  return typeof a === 'number' && typeof b === 'number' ? a + b : null;
}

export const chatRoute: EvalRoute = {
  name: 'chat',
  path: '/v1/chat/completions',
  upstreamPath: '/chat/completions',
  inspectQuery: '',
  messages: (body) => body.messages as ChatMessage[],
  pinned(body) {
    const messages = body.messages as ChatMessage[];
    let n = 0;
    while (n < messages.length && (messages[n]!.role === 'system' || messages[n]!.role === 'developer')) n++;
    return n;
  },
  withProbe: (body, question, tools = 'none') => withToolChoice({ ...body, messages: [...(body.messages as ChatMessage[]), { role: 'user', content: question }] }, tools),
  answerText(reply) {
    const content = (reply as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
    return typeof content === 'string' ? content : '';
  },
  usageTokens: (reply) => usageTotal(reply, 'prompt_tokens', 'completion_tokens'),
  directHeaders: bearer,
};

export const responsesRoute: EvalRoute = {
  name: 'responses',
  path: '/v1/responses',
  upstreamPath: '/responses',
  inspectQuery: '?route=responses',
  messages: (body) => (body.input as ResponseItem[]).map(asChatMessage),
  pinned(body) {
    const items = body.input as ResponseItem[];
    let n = 0;
    while (n < items.length && describeResponseItem(items[n]!).kind === 'instruction') n++;
    return n;
  },
  withProbe: (body, question, tools = 'none') => withToolChoice({ ...body, input: [...(body.input as ResponseItem[]), { role: 'user', content: question }] }, tools),
  answerText(reply) {
    const output = (reply as { output?: unknown } | null)?.output;
    if (!Array.isArray(output)) return '';
    const parts = output.filter((item) => item?.type === 'message').flatMap((item) => (Array.isArray(item.content) ? item.content : []));
    return parts
      .filter((p: { type?: unknown; text?: unknown }) => p?.type === 'output_text' && typeof p.text === 'string')
      .map((p: { text: string }) => p.text)
      .join('');
  },
  usageTokens: (reply) => usageTotal(reply, 'input_tokens', 'output_tokens'),
  directHeaders: bearer,
};

export const messagesRoute: EvalRoute = {
  name: 'messages',
  path: '/v1/messages',
  upstreamPath: '/messages',
  inspectQuery: '?route=messages',
  // A turn with nothing to show (thinking only) is an empty message: the items stay aligned.
  messages: (body) => (body.messages as AnthropicMessage[]).map((m) => messageAsChat(m) ?? { role: m.role, content: '' }),
  pinned(body) {
    const messages = body.messages as AnthropicMessage[];
    let n = 0;
    while (n < messages.length && describeAnthropicMessage(messages[n]!).kind === 'instruction') n++;
    return n;
  },
  withProbe(body, question, tools = 'none') {
    const { tool_choice: _choice, ...rest } = body;
    const offers = Array.isArray(body.tools) && body.tools.length > 0;
    const probed = { ...rest, messages: [...(body.messages as AnthropicMessage[]), { role: 'user', content: question }] } as EvalBody;
    return offers ? { ...probed, tool_choice: { type: tools } } : probed;
  },
  answerText(reply) {
    const content = (reply as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) return '';
    return content
      .filter((b: { type?: unknown; text?: unknown }) => b?.type === 'text' && typeof b.text === 'string')
      .map((b: { text: string }) => b.text)
      .join('');
  },
  usageTokens(reply) {
    const u = (reply as { usage?: Record<string, unknown> } | null)?.usage;
    const n = (v: unknown) => (typeof v === 'number' ? v : 0);
    return u && typeof u.input_tokens === 'number' ? n(u.input_tokens) + n(u.cache_creation_input_tokens) + n(u.cache_read_input_tokens) + n(u.output_tokens) : null;
  },
  directHeaders: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
};
