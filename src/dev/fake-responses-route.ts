// POST /v1/responses: checks the input as OpenAI does, then answers with a `response` object
// (JSON) or its typed SSE stream (`stream: true`). The default reply is the chat route's, read
// from the request's instructions and input items.
import { defaultChatReply } from './fake-default-reply.js';
import { planResponse, responseObject } from './fake-responses.js';
import { inputProblem } from './fake-responses-check.js';
import { responseEvents } from './fake-responses-stream.js';
import { chatViewOf } from './fake-responses-view.js';
import { summaryOf } from './fake-summary.js';
import { type Exchange, sendBody } from './fake-send.js';
import { startEventStream, writeEvents } from './fake-sse.js';
import { stringifyJson } from '../body/stringify.js';

export const RESPONSES_PATH = '/v1/responses';

export async function sendResponse(x: Exchange, status: number, headers: Record<string, string>): Promise<void> {
  const request = x.record.json;
  const problem = inputProblem(request);
  if (problem !== null) return sendBody(x, 400, headers, problem);
  const inputTokens = x.options().promptTokens?.(x.record) ?? estimatedInputTokens(request);
  const plan = planResponse(x.reply, {
    id: `fake${x.serial}`,
    request,
    inputTokens,
    cachedTokens: x.options().cachedTokens?.(x.record, inputTokens),
    fallback: () => (x.isSummarizerCall ? { content: summaryOf(request, x.options().lossySummarizer) } : defaultChatReply(chatViewOf(request))),
  });
  if (request.stream !== true) return sendBody(x, status, headers, responseObject(plan, true));
  startEventStream(x.res, status, headers);
  await writeEvents(x.writer, responseEvents(plan, x.reply.sseError), () => x.options().chunkDelayMs ?? 0, x.reply.stall);
}

/** As the chat route estimates prompt_tokens: about four characters of the JSON a token. */
function estimatedInputTokens(request: any): number {
  return Math.ceil(stringifyJson([request.instructions ?? null, request.input ?? null]).length / 4);
}
