// The fake Anthropic upstream's answers per route: POST /v1/messages (JSON or typed SSE; the
// summarizer's calls answered with an extractive summary), /v1/messages/count_tokens, /v1/models.
import type { ServerResponse } from 'node:http';
import type { BodyWriter } from './fake-body-writer.js';
import { countInput, o200kOfTokens } from './fake-anthropic-count.js';
import { requestProblem, windowProblem } from './fake-anthropic-check.js';
import { anthropicErrorBody, messageBody, messageEvents, planMessage } from './fake-anthropic-reply.js';
import type { AnthropicScriptedReply, FakeAnthropicOptions, FakeCount, RecordedRequest } from './fake-anthropic-types.js';
import { type Exchange, sendBody } from './fake-send.js';
import { startEventStream, writeEvents } from './fake-sse.js';
import { extractiveSummary, isSharedPrefixCall, sharedPrefixSummary } from './fake-summary.js';
import { textOf } from './fake-text.js';
import { probeReply } from './fake-recall.js';
import { asChatMessage } from '../wire/messages/items.js';

export const MESSAGES_PATH = '/v1/messages';
export const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';
const MODELS_PATH = '/v1/models';

export interface AnthropicExchange {
  record: RecordedRequest;
  reply: AnthropicScriptedReply;
  res: ServerResponse;
  writer: BodyWriter;
  serial: number;
  path: string;
  summarizer: boolean;
  options: FakeAnthropicOptions;
  /** Counts a messages request through the fake's prompt cache (once per request). */
  count(request: unknown): FakeCount;
  refuse(message: string): void;
}

/** The Exchange of the OpenAI fake's sendBody, which only reads these members. */
const asExchange = (x: AnthropicExchange): Exchange => ({
  ...x,
  reply: x.reply,
  isChatCall: false,
  isResponsesCall: false,
  isSummarizerCall: x.summarizer,
  options: () => x.options,
});

export async function respondAnthropic(x: AnthropicExchange): Promise<void> {
  const status = x.reply.status ?? 200;
  const headers = { 'request-id': `req_fake_${x.serial}`, ...x.reply.headers };
  const send = (s: number, body: unknown) => sendBody(asExchange(x), s, headers, body);
  if (x.reply.body !== undefined) return send(status, x.reply.body);
  if (status >= 400) return send(status, anthropicErrorBody(status));
  if (x.record.headers['x-api-key'] === undefined && x.record.headers.authorization === undefined) {
    return send(401, anthropicErrorBody(401, 'x-api-key header is required'));
  }
  if (x.record.method === 'GET' && x.path === MODELS_PATH) return send(200, modelsList(x.options.summarizerModel));
  if (x.record.method !== 'POST') return send(404, anthropicErrorBody(404, 'Not found'));
  const request = x.record.json;
  if (x.path === COUNT_TOKENS_PATH) {
    const problem = requestProblem({ max_tokens: 1, ...request });
    return problem ? send(400, anthropicErrorBody(400, problem)) : send(200, { input_tokens: countInput(request) });
  }
  if (x.path !== MESSAGES_PATH) return send(404, anthropicErrorBody(404, 'Not found'));
  const problem = requestProblem(request) ?? windowProblem(countInput(request), request.max_tokens, x.summarizer ? undefined : x.options.contextWindow);
  if (problem) {
    x.refuse(problem);
    return send(400, anthropicErrorBody(400, problem));
  }
  // The summarizer's reply is its summary alone, cut at max_tokens by the fake's own count (as a model stops).
  const output = x.summarizer
    ? {
        text: isSharedPrefixCall(request)
          ? sharedPrefixSummary(request, { maxTokens: o200kOfTokens(request.max_tokens) })
          : extractiveSummary({ ...request, max_tokens: o200kOfTokens(request.max_tokens) }),
      }
    : scriptsOutput(x.reply)
      ? x.reply
      : { ...x.reply, ...defaultReply(request) };
  const plan = planMessage(output, { id: `fake${x.serial}`, model: request.model, count: x.count(request) });
  if (request.stream !== true) return send(status, messageBody(plan));
  startEventStream(x.res, status, headers);
  await writeEvents(x.writer, messageEvents(plan, x.reply.sseError), () => x.options.chunkDelayMs ?? 0, x.reply.stall);
}

function scriptsOutput(reply: AnthropicScriptedReply): boolean {
  return reply.text !== undefined || reply.toolUses !== undefined || reply.thinking !== undefined;
}

/** A probe of `recap eval` answered from what the request holds, as the OpenAI fake answers it (fake-recall.ts), else null. */
function probe(request: any): AnthropicScriptedReply | null {
  const system = typeof request.system === 'string' ? request.system : Array.isArray(request.system) ? textOf(request.system) : '';
  const messages = [{ role: 'system', content: system }, ...request.messages.map((m: any) => asChatMessage(m) ?? { role: m.role, content: '' })];
  const tools = (Array.isArray(request.tools) ? request.tools : []).map((t: any) => ({ type: 'function', function: { name: t?.name } }));
  const reply = probeReply(messages, tools);
  if (reply === null) return null;
  if (reply.toolCalls?.length) return { toolUses: reply.toolCalls.map((c) => ({ name: c.name, input: JSON.parse(c.arguments) as Record<string, unknown> })) };
  return { text: reply.content ?? '' };
}

/** Nothing scripted: the answer to a probe, else an echo of the last user text. */
function defaultReply(request: any): AnthropicScriptedReply {
  const answered = probe(request);
  if (answered) return answered;
  const lastUser = [...request.messages].reverse().find((m: any) => m?.role === 'user');
  const said = textOf(lastUser?.content).replace(/\s+/g, ' ').trim();
  return { text: `Echo: ${said.slice(0, 60)}. This is a deterministic reply from the fake Anthropic upstream.` };
}

function modelsList(summarizerModel: string | undefined): object {
  const ids = [...new Set(['claude-sonnet-4-5', 'claude-opus-4-5', 'claude-haiku-4-5', ...(summarizerModel ? [summarizerModel] : [])])];
  const data = ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-09-29T00:00:00Z' }));
  return { data, has_more: false, first_id: ids[0], last_id: ids.at(-1) };
}
