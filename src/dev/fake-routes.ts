// The fake's answers per route: chat completions (JSON or SSE), responses (fake-responses-route.ts),
// the models list, an echo of anything else, scripted raw bodies and OpenAI-shaped errors.
import { defaultChatReply } from './fake-default-reply.js';
import { completionBody, errorBody, planChatReply, streamEvents } from './fake-replies.js';
import { flood } from './fake-flood.js';
import { sendResponse } from './fake-responses-route.js';
import { pathOf } from './fake-script.js';
import { type Exchange, sendBody } from './fake-send.js';
import { startEventStream, writeEvents } from './fake-sse.js';
import { summaryOf } from './fake-summary.js';
import { stringifyJson } from '../body/stringify.js';

export const CHAT_PATH = '/v1/chat/completions';
const MODELS_PATH = '/v1/models';

export async function respond(x: Exchange): Promise<void> {
  const status = x.reply.status ?? 200;
  const headers = { 'x-request-id': `req_fake_${x.serial}`, ...x.reply.headers };
  if (x.reply.flood !== undefined) return flood(x.res, x.record, x.reply.flood, headers);
  if (x.reply.body !== undefined) return sendBody(x, status, headers, x.reply.body);
  if (status >= 400) return sendBody(x, status, headers, errorBody(status));
  if (x.isChatCall || x.isResponsesCall) {
    const json = x.record.json;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      return sendBody(x, 400, headers, errorBody(400, 'We could not parse the JSON body of your request.'));
    }
    return x.isChatCall ? sendChat(x, status, headers) : sendResponse(x, status, headers);
  }
  if (x.record.method === 'GET' && pathOf(x.record) === MODELS_PATH) {
    return sendBody(x, status, headers, modelsList(x.options().summarizerModel));
  }
  return sendBody(x, status, headers, { object: 'echo', method: x.record.method, path: x.record.path, body: x.record.body });
}

async function sendChat(x: Exchange, status: number, headers: Record<string, string>): Promise<void> {
  const request = x.record.json;
  const options = x.options();
  const promptTokens = options.promptTokens?.(x.record) ?? Math.ceil(stringifyJson(request.messages ?? []).length / 4);
  const plan = planChatReply(x.reply, {
    id: `fake${x.serial}`,
    model: typeof request.model === 'string' ? request.model : 'fake-model',
    promptTokens,
    cachedTokens: options.cachedTokens?.(x.record, promptTokens),
    fallback: () => (x.isSummarizerCall ? { content: summaryOf(request, options.lossySummarizer) } : defaultChatReply(request)),
  });
  if (request.stream !== true) return sendBody(x, status, headers, completionBody(plan, x.reply.usage ?? true));
  const withUsage = x.reply.usage ?? request.stream_options?.include_usage === true;
  startEventStream(x.res, status, headers);
  await writeEvents(x.writer, streamEvents(plan, withUsage, x.reply.sseError), () => x.options().chunkDelayMs ?? 0, x.reply.stall);
}

function modelsList(summarizerModel: string | undefined): object {
  const ids = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1-mini', ...(summarizerModel ? [summarizerModel] : [])];
  return {
    object: 'list',
    data: [...new Set(ids)].map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake-upstream' })),
  };
}
