import { usageReportOf } from '../tokens/usage.js';
import { type ReadReply, replyObject } from './reply.js';

// A summary read from a Responses API reply (a summarizer call on a Responses conversation's own
// cached prefix), as strictly as a chat completion (reply.ts): only a `completed` response with
// text is a summary; an error, a refusal, or one cut off at its limit or filtered is not.

interface ResponseObject {
  error?: unknown;
  status?: unknown;
  incomplete_details?: { reason?: unknown } | null;
  output?: { type?: unknown; content?: { type?: unknown; text?: unknown; refusal?: unknown }[] }[];
}

export function readResponsesSummarizerReply(body: string): ReadReply {
  const read = replyObject<ResponseObject>(body, (j) => Boolean(j.error));
  if (!('json' in read)) return read;
  const { json } = read;
  const incomplete = json.incomplete_details?.reason;
  if (incomplete === 'max_output_tokens') return { ok: false, reason: 'truncated', detail: 'summarizer reply was cut off at its token limit' };
  if (incomplete === 'content_filter') return { ok: false, reason: 'refused', detail: 'summarizer reply was filtered' };
  if (json.status !== 'completed') return { ok: false, reason: 'error', detail: `summarizer response is ${String(json.status)}` };
  const parts = (Array.isArray(json.output) ? json.output : []).filter((item) => item?.type === 'message').flatMap((item) => (Array.isArray(item.content) ? item.content : []));
  if (parts.some((p) => p?.type === 'refusal')) return { ok: false, reason: 'refused', detail: 'summarizer refused' };
  const text = parts
    .map((p) => (p?.type === 'output_text' && typeof p.text === 'string' ? p.text : ''))
    .join('')
    .trim();
  if (!text) return { ok: false, reason: 'empty', detail: 'summarizer returned no text' };
  const usage = usageReportOf(json);
  return {
    ok: true,
    text,
    ...(usage && Number.isFinite(usage.promptTokens) ? { promptTokens: usage.promptTokens } : {}),
    ...(usage?.outputTokens === undefined ? {} : { completionTokens: usage.outputTokens }),
    ...(usage?.cachedTokens === undefined ? {} : { cachedTokens: usage.cachedTokens }),
  };
}
