import type { ChatMessage } from '../messages/types.js';
import { asChatMessage, describeResponseItem } from '../responses/items.js';
import type { ResponseItem } from '../responses/types.js';

// The two wire formats `recap eval` can read a conversation in: a chat request body (`messages`)
// goes through /v1/chat/completions, a stateless Responses body (`input` items) through
// /v1/responses. Each says where it is sent, how its items read as chat messages (for probes,
// aligned with the items recap's checkpoints count), and how a probe is asked and answered.

export type EvalBody = Record<string, unknown> & { model: string };

export interface EvalRoute {
  name: 'chat' | 'responses';
  /** recap's path for it, and the upstream's (after its base_url). */
  path: string;
  upstreamPath: string;
  /** The inspection endpoint's query for this route's records. */
  inspectQuery: string;
  /** The conversation's items, read as chat messages, one per item. */
  messages(body: EvalBody): ChatMessage[];
  /** How many leading items are pinned instructions (checkpoint indices count from after them). */
  pinned(body: EvalBody): number;
  /** The conversation with the probe as its last user message; a tool call would not answer it. */
  withProbe(body: EvalBody, question: string): EvalBody;
  /** The model's text in a reply ('' when it called tools or said nothing). */
  answerText(reply: unknown): string;
}

const withoutTools = (body: EvalBody): Record<string, unknown> => (Array.isArray(body.tools) && body.tools.length > 0 ? { tool_choice: 'none' } : {});

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
  withProbe: (body, question) => ({ ...body, messages: [...(body.messages as ChatMessage[]), { role: 'user', content: question }], ...withoutTools(body) }),
  answerText(reply) {
    const content = (reply as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
    return typeof content === 'string' ? content : '';
  },
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
  withProbe: (body, question) => ({ ...body, input: [...(body.input as ResponseItem[]), { role: 'user', content: question }], ...withoutTools(body) }),
  answerText(reply) {
    const output = (reply as { output?: unknown } | null)?.output;
    if (!Array.isArray(output)) return '';
    const parts = output.filter((item) => item?.type === 'message').flatMap((item) => (Array.isArray(item.content) ? item.content : []));
    return parts
      .filter((p: { type?: unknown; text?: unknown }) => p?.type === 'output_text' && typeof p.text === 'string')
      .map((p: { text: string }) => p.text)
      .join('');
  },
};
