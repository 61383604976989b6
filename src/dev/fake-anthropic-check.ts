// The fake Anthropic upstream refuses what Anthropic refuses, with its 400 messages, so that a
// test sees a proxy break a request the way the real API would: a `tool_use` without its
// `tool_result` in the next message (or a result without its call), more than 4 `cache_control`
// breakpoints, an altered thinking signature, a final assistant turn of a tool loop that lost its
// thinking, no `max_tokens`, and a prompt over the window.
import { thinkingProblem } from './fake-anthropic-thinking.js';

const MAX_BREAKPOINTS = 4;

const blocksOf = (message: any): any[] => (Array.isArray(message?.content) ? message.content : []);

function countBreakpoints(request: any): number {
  let n = 0;
  const visit = (items: unknown): void => {
    if (!Array.isArray(items)) return;
    for (const item of items) if (item && typeof item === 'object' && (item as { cache_control?: unknown }).cache_control) n++;
  };
  visit(request.tools);
  visit(request.system);
  for (const message of Array.isArray(request.messages) ? request.messages : []) visit(message?.content);
  return n;
}

function pairingProblem(messages: any[]): string | null {
  for (const [i, message] of messages.entries()) {
    if (message?.role !== 'assistant') continue;
    const uses = blocksOf(message)
      .filter((b) => b?.type === 'tool_use')
      .map((b) => String(b.id));
    if (uses.length === 0) continue;
    const next = messages[i + 1];
    if (next === undefined) return 'the last message is an assistant tool_use: prefill cannot end in tool_use';
    const results = new Set(
      blocksOf(next)
        .filter((b) => b?.type === 'tool_result')
        .map((b) => String(b.tool_use_id)),
    );
    const missing = uses.filter((id) => !results.has(id));
    if (next.role !== 'user' || missing.length > 0)
      return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  for (const [i, message] of messages.entries()) {
    const results = blocksOf(message).filter((b) => b?.type === 'tool_result');
    if (results.length === 0) continue;
    const previous = messages[i - 1];
    const uses = new Set(
      blocksOf(previous)
        .filter((b) => b?.type === 'tool_use')
        .map((b) => String(b.id)),
    );
    const stray = results.find((r) => previous?.role !== 'assistant' || !uses.has(String(r.tool_use_id)));
    if (stray)
      return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(stray.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
  }
  return null;
}

/** With thinking on, the assistant turn of an unfinished tool loop (the last one, answered by tool results) starts with its thinking. */
function loopThinkingProblem(request: any, messages: any[]): string | null {
  if (request.thinking?.type !== 'enabled' && request.thinking?.type !== 'adaptive') return null;
  const lastAssistant = messages.length - 2;
  if (messages[lastAssistant]?.role !== 'assistant') return null;
  const blocks = blocksOf(messages[lastAssistant]);
  if (!blocks.some((b) => b?.type === 'tool_use')) return null;
  const first = blocks[0]?.type;
  return first === 'thinking' || first === 'redacted_thinking'
    ? null
    : `messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
}

/** Anthropic's 400 message for the request, or null when the fake accepts it. */
export function requestProblem(request: any): string | null {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return 'There was an error parsing the body of your request.';
  if (typeof request.model !== 'string') return 'model: Field required';
  if (typeof request.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(request.messages) || request.messages.length === 0) return 'messages: at least one message is required';
  const breakpoints = countBreakpoints(request);
  if (breakpoints > MAX_BREAKPOINTS) return `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`;
  for (const [i, message] of request.messages.entries()) {
    for (const [j, block] of blocksOf(message).entries()) {
      const problem = thinkingProblem(block);
      if (problem) return `messages.${i}.content.${j}: ${problem}`;
    }
  }
  return pairingProblem(request.messages) ?? loopThinkingProblem(request, request.messages);
}

/** Anthropic's 400 for a prompt over the window, or null. */
export function windowProblem(inputTokens: number, maxTokens: number, contextWindow: number | undefined): string | null {
  if (contextWindow === undefined) return null;
  if (inputTokens > contextWindow) return `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum`;
  if (inputTokens + maxTokens > contextWindow)
    return `input length and \`max_tokens\` exceed context limit: ${inputTokens} + ${maxTokens} > ${contextWindow}, decrease input length or \`max_tokens\` and try again`;
  return null;
}
