import type { ChatMessage, ChatRequest } from '../messages/types.js';
import type { ModelConfig } from '../config/config.js';
import { resolveBudget } from '../tokens/budget.js';
import { countRequest } from '../tokens/count-request.js';

// The requests `recap eval` sends: the conversation as one non-streamed request, and with a probe.

/** Null when the full history plus a probe fits the model's context window, else why not. */
export function fitsWindow(request: ChatRequest, model: ModelConfig): string | null {
  const counted = countRequest(request, model);
  const reserved = resolveBudget(model, request, 0).outputReservation;
  if (counted.prompt_tokens + reserved <= model.context_window) return null;
  return `the full history (${counted.prompt_tokens} tokens + ${reserved} for the reply) does not fit the ${model.context_window}-token context window`;
}

export function leadingPinned(messages: readonly ChatMessage[]): number {
  let n = 0;
  while (n < messages.length && (messages[n]!.role === 'system' || messages[n]!.role === 'developer')) n++;
  return n;
}

export function withoutStreaming(body: ChatRequest): ChatRequest {
  const { stream: _stream, stream_options: _options, ...rest } = body;
  return rest as ChatRequest;
}

/** The conversation with the probe as the last user message; a tool call would not answer it. */
export function withProbe(request: ChatRequest, question: string): ChatRequest {
  const asked: ChatRequest = { ...request, messages: [...request.messages, { role: 'user', content: question }] };
  if (Array.isArray(request.tools) && request.tools.length > 0) asked.tool_choice = 'none';
  return asked;
}
