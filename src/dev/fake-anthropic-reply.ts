// Turns a scripted reply into Anthropic wire objects: a `message` body, the typed SSE events of
// its stream (message_start, content_block_start/delta/stop, ping, message_delta, message_stop,
// or an `error` event), and Anthropic-shaped error bodies.
import type { AnthropicScriptedReply, FakeCount } from './fake-anthropic-types.js';
import { redactedThinkingData, signThinking } from './fake-anthropic-thinking.js';
import { fragments, tokensOfChars } from './fake-replies.js';

type Block =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface MessagePlan {
  id: string;
  model: string;
  content: Block[];
  stopReason: string;
  usage: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; output_tokens: number };
}

export function planMessage(reply: AnthropicScriptedReply, ctx: { id: string; model: string; count: FakeCount }): MessagePlan {
  const content: Block[] = [];
  if (reply.thinking !== undefined) content.push({ type: 'thinking', thinking: reply.thinking, signature: signThinking(reply.thinking) });
  if (reply.redactedThinking) content.push({ type: 'redacted_thinking', data: redactedThinkingData(ctx.id) });
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
  (reply.toolUses ?? []).forEach((use, i) => content.push({ type: 'tool_use', id: `toolu_${ctx.id}_${i}`, name: use.name, input: use.input }));
  const outputChars = content.reduce((n, b) => n + JSON.stringify(b).length, 0);
  const { total, cacheRead, cacheCreation } = ctx.count;
  return {
    id: `msg_${ctx.id}`,
    model: ctx.model,
    content,
    stopReason: reply.stopReason ?? (reply.toolUses?.length ? 'tool_use' : 'end_turn'),
    usage: {
      input_tokens: total - cacheRead - cacheCreation,
      cache_creation_input_tokens: cacheCreation,
      cache_read_input_tokens: cacheRead,
      output_tokens: Math.max(1, tokensOfChars(outputChars)),
    },
  };
}

export function messageBody(plan: MessagePlan): object {
  return {
    id: plan.id,
    type: 'message',
    role: 'assistant',
    model: plan.model,
    content: plan.content,
    stop_reason: plan.stopReason,
    stop_sequence: null,
    usage: plan.usage,
  };
}

const frame = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The block as content_block_start announces it: nothing generated yet. */
function opening(block: Block): object {
  switch (block.type) {
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'redacted_thinking':
      return block;
    case 'text':
      return { type: 'text', text: '' };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
  }
}

function deltas(block: Block): object[] {
  switch (block.type) {
    case 'thinking':
      return [...fragments(block.thinking, 24).map((thinking) => ({ type: 'thinking_delta', thinking })), { type: 'signature_delta', signature: block.signature }];
    case 'redacted_thinking':
      return [];
    case 'text':
      return fragments(block.text, 16).map((text) => ({ type: 'text_delta', text }));
    case 'tool_use':
      return [{ type: 'input_json_delta', partial_json: '' }, ...fragments(JSON.stringify(block.input), 12).map((partial_json) => ({ type: 'input_json_delta', partial_json }))];
  }
}

/** Every SSE frame of the stream, in order; with `sseError`, an `error` event replaces the message's end. */
export function messageEvents(plan: MessagePlan, sseError?: { type: string; message: string }): string[] {
  const frames = [frame('message_start', { message: { ...messageBody(plan), content: [], stop_reason: null, usage: { ...plan.usage, output_tokens: 1 } } }), frame('ping', {})];
  plan.content.forEach((block, index) => {
    frames.push(frame('content_block_start', { index, content_block: opening(block) }));
    for (const delta of deltas(block)) frames.push(frame('content_block_delta', { index, delta }));
    frames.push(frame('content_block_stop', { index }));
  });
  if (sseError) return [...frames, frame('error', { error: sseError })];
  // message_delta's usage is cumulative: the input and cache counts again, the output in full.
  frames.push(frame('message_delta', { delta: { stop_reason: plan.stopReason, stop_sequence: null }, usage: plan.usage }));
  frames.push(frame('message_stop', {}));
  return frames;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function anthropicErrorBody(status: number, message?: string): object {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message: message ?? `Fake Anthropic error ${status}` }, request_id: null };
}
