// Turns a scripted reply into OpenAI wire objects: a `chat.completion` body, the SSE events of a
// `chat.completion.chunk` stream, and OpenAI-shaped error bodies.
import type { ScriptedReasoning, ScriptedReply, ScriptedToolCall } from './fake-types.js';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

export interface ChatReplyPlan {
  id: string;
  created: number;
  model: string;
  content: string | null;
  /** Content deltas for streaming; joined they equal `content`. */
  contentChunks: string[];
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  promptTokens: number;
  /** Reported as prompt_tokens_details.cached_tokens when set. */
  cachedTokens?: number | undefined;
}

export interface PlanContext {
  id: string;
  model: string;
  promptTokens: number;
  cachedTokens?: number | undefined;
  /** Used when the scripted reply says nothing about content or tool calls; lazy, summaries cost work. */
  fallback: () => ScriptedReply;
}

/** What a reply says the model outputs: the scripted content and calls, else the fallback's. */
export interface ScriptedOutput {
  content: string | null;
  /** Content deltas for streaming; joined they equal `content`. */
  contentChunks: string[];
  toolCalls: ScriptedToolCall[];
  reasoning: ScriptedReasoning | undefined;
}

export function scriptedOutput(reply: ScriptedReply, fallback: () => ScriptedReply): ScriptedOutput {
  const scriptsOutput = reply.content !== undefined || reply.toolCalls !== undefined || reply.stream?.chunks !== undefined;
  const source = scriptsOutput ? reply : fallback();
  const chunks = source.stream?.chunks;
  const content = source.content ?? chunks?.join('') ?? null;
  return {
    content,
    contentChunks: chunks ?? splitIntoWordGroups(content ?? ''),
    toolCalls: source.toolCalls ?? [],
    reasoning: reply.reasoning ?? source.reasoning,
  };
}

export function planChatReply(reply: ScriptedReply, ctx: PlanContext): ChatReplyPlan {
  const output = scriptedOutput(reply, ctx.fallback);
  const toolCalls = output.toolCalls.map((call, i) => ({ id: `call_${ctx.id}_${i}`, ...call }));
  return {
    id: `chatcmpl-${ctx.id}`,
    created: Math.floor(Date.now() / 1000),
    model: ctx.model,
    content: output.content,
    contentChunks: output.contentChunks,
    toolCalls,
    finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    promptTokens: ctx.promptTokens,
    cachedTokens: ctx.cachedTokens,
  };
}

/** Tokens the fake reports for that many characters of generated text: about four a token. */
export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / 4);
}

export function usageOf(plan: ChatReplyPlan): Usage {
  const outputChars = (plan.content ?? '').length + plan.toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const completion = Math.max(1, tokensOfChars(outputChars));
  const usage: Usage = { prompt_tokens: plan.promptTokens, completion_tokens: completion, total_tokens: plan.promptTokens + completion };
  if (plan.cachedTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: plan.cachedTokens };
  return usage;
}

export function completionBody(plan: ChatReplyPlan, withUsage: boolean): object {
  const message: Record<string, unknown> = { role: 'assistant', content: plan.content, refusal: null };
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  return {
    id: plan.id,
    object: 'chat.completion',
    created: plan.created,
    model: plan.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: plan.finishReason }],
    ...(withUsage ? { usage: usageOf(plan) } : {}),
  };
}

/** Every SSE event of the stream, each a complete `data: ...\n\n` frame, in order. */
export function streamEvents(plan: ChatReplyPlan, withUsage: boolean, sseError: unknown): string[] {
  // OpenAI sends `usage: null` on every chunk once include_usage is on; the SDK types expect it.
  const chunk = (delta: object, finishReason: string | null = null): string =>
    frame({
      id: plan.id,
      object: 'chat.completion.chunk',
      created: plan.created,
      model: plan.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(withUsage ? { usage: null } : {}),
    });

  const events = [chunk({ role: 'assistant', content: plan.content === null ? null : '', refusal: null })];
  for (const piece of plan.contentChunks) events.push(chunk({ content: piece }));
  plan.toolCalls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const fragment of fragments(call.arguments, 12)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  if (sseError !== undefined) return [...events, frame({ error: sseError })];
  events.push(chunk({}, plan.finishReason));
  if (withUsage) {
    events.push(frame({ id: plan.id, object: 'chat.completion.chunk', created: plan.created, model: plan.model, choices: [], usage: usageOf(plan) }));
  }
  events.push('data: [DONE]\n\n');
  return events;
}

export function errorBody(status: number, message?: string): object {
  const [type, code] = ERROR_KINDS[status] ?? (status >= 500 ? ['server_error', null] : ['invalid_request_error', null]);
  return { error: { message: message ?? `Fake upstream error ${status}`, type, param: null, code } };
}

const ERROR_KINDS: Record<number, [string, string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  403: ['invalid_request_error', 'unsupported_country_region_territory'],
  404: ['invalid_request_error', 'model_not_found'],
  429: ['requests', 'rate_limit_exceeded'],
};

function frame(data: object): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Groups of up to three words with their whitespace, so the groups join back to the exact text. */
function splitIntoWordGroups(text: string): string[] {
  if (text === '') return [];
  return text.match(/\s*\S+(?:\s+\S+){0,2}\s*/g) ?? [text];
}

export function fragments(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
