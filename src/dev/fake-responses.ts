// Turns a scripted reply into a Responses API `response` object: a reasoning item (when
// scripted), a `message` item with one output_text part, one `function_call` item per tool call,
// usage, and the request's parameters echoed back as OpenAI does.
import { encryptReasoning } from './fake-reasoning.js';
import { scriptedOutput, tokensOfChars } from './fake-replies.js';
import type { ScriptedReply } from './fake-types.js';

export type PlannedItem =
  | { type: 'reasoning'; id: string; summary: string[]; encryptedContent: string | null }
  | { type: 'message'; id: string; text: string; chunks: string[] }
  | { type: 'function_call'; id: string; callId: string; name: string; arguments: string };

export interface ResponsePlan {
  id: string;
  createdAt: number;
  model: string;
  request: any;
  items: PlannedItem[];
  status: 'completed' | 'incomplete';
  incompleteReason: string | null;
  usage: ResponseUsage | null;
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponsePlanContext {
  /** Unique per request: `fake7` makes `resp_fake7`, `msg_fake7`, `call_fake7_0`... */
  id: string;
  request: any;
  inputTokens: number;
  cachedTokens?: number | undefined;
  fallback: () => ScriptedReply;
}

const INCOMPLETE_REASONS: Record<string, string> = { length: 'max_output_tokens', content_filter: 'content_filter' };

export function planResponse(reply: ScriptedReply, ctx: ResponsePlanContext): ResponsePlan {
  const output = scriptedOutput(reply, ctx.fallback);
  const items: PlannedItem[] = [];
  const reasoning = output.reasoning;
  if (reasoning !== undefined) {
    const id = `rs_${ctx.id}`;
    const summary = reasoning.summary ?? [];
    const encrypted = reasoning.encrypted ?? includes(ctx.request, 'reasoning.encrypted_content');
    items.push({ type: 'reasoning', id, summary, encryptedContent: encrypted ? encryptReasoning(id, summary) : null });
  }
  if (output.content !== null) items.push({ type: 'message', id: `msg_${ctx.id}`, text: output.content, chunks: output.contentChunks });
  output.toolCalls.forEach((call, i) => {
    items.push({ type: 'function_call', id: `fc_${ctx.id}_${i}`, callId: `call_${ctx.id}_${i}`, name: call.name, arguments: call.arguments });
  });
  const incompleteReason = INCOMPLETE_REASONS[reply.finishReason ?? ''] ?? null;
  return {
    id: `resp_${ctx.id}`,
    createdAt: Math.floor(Date.now() / 1000),
    model: typeof ctx.request.model === 'string' ? ctx.request.model : 'fake-model',
    request: ctx.request,
    items,
    status: incompleteReason === null ? 'completed' : 'incomplete',
    incompleteReason,
    usage: reply.usage === false ? null : usageOf(items, ctx.inputTokens, ctx.cachedTokens ?? 0),
  };
}

/** The item as the finished response holds it (and `response.output_item.done` carries it). */
export function renderItem(item: PlannedItem, plan: ResponsePlan): object {
  const status = plan.status === 'completed' ? 'completed' : 'incomplete';
  switch (item.type) {
    case 'reasoning':
      return {
        id: item.id,
        type: 'reasoning',
        summary: item.summary.map((text) => ({ type: 'summary_text', text })),
        ...(item.encryptedContent === null ? {} : { encrypted_content: item.encryptedContent }),
      };
    case 'message':
      return { id: item.id, type: 'message', status, content: [outputText(item.text)], role: 'assistant' };
    case 'function_call':
      return { id: item.id, type: 'function_call', status: 'completed', arguments: item.arguments, call_id: item.callId, name: item.name };
  }
}

export function outputText(text: string): object {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

/** The response object: in progress (empty output, no usage, as `response.created` carries it) or finished. */
export function responseObject(plan: ResponsePlan, finished: boolean): object {
  const r = plan.request;
  return {
    id: plan.id,
    object: 'response',
    created_at: plan.createdAt,
    status: finished ? plan.status : 'in_progress',
    background: r.background ?? false,
    completed_at: finished && plan.status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    error: null,
    incomplete_details: finished && plan.incompleteReason !== null ? { reason: plan.incompleteReason } : null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    max_tool_calls: r.max_tool_calls ?? null,
    model: plan.model,
    output: finished ? plan.items.map((item) => renderItem(item, plan)) : [],
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: r.previous_response_id ?? null,
    ...(r.conversation != null ? { conversation: typeof r.conversation === 'string' ? { id: r.conversation } : r.conversation } : {}),
    reasoning: { effort: r.reasoning?.effort ?? null, summary: r.reasoning?.summary ?? null },
    store: r.store ?? true,
    temperature: r.temperature ?? 1,
    text: r.text ?? { format: { type: 'text' } },
    tool_choice: r.tool_choice ?? 'auto',
    tools: r.tools ?? [],
    top_p: r.top_p ?? 1,
    truncation: r.truncation ?? 'disabled',
    usage: finished ? plan.usage : null,
    user: r.user ?? null,
    metadata: r.metadata ?? {},
  };
}

function usageOf(items: PlannedItem[], inputTokens: number, cachedTokens: number): ResponseUsage {
  let chars = 0;
  let reasoningTokens = 0;
  for (const item of items) {
    if (item.type === 'message') chars += item.text.length;
    if (item.type === 'function_call') chars += item.name.length + item.arguments.length;
    // A model reasons for longer than its summary says; never zero when it reasoned at all.
    if (item.type === 'reasoning') reasoningTokens = Math.max(1, tokensOfChars(item.summary.join('').length));
  }
  const output = Math.max(1, tokensOfChars(chars)) + reasoningTokens;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: cachedTokens },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + output,
  };
}

function includes(request: any, what: string): boolean {
  return Array.isArray(request?.include) && request.include.includes(what);
}
