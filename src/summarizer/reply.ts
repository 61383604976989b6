import { usageReportOf } from '../tokens/usage.js';

// A summarizer's reply, read strictly: only a chat completion that finished on its own with text
// is a summary. A 200 can still carry an error object, a refusal, a cut-off text
// (`finish_reason: "length"`) or a filtered one; storing any of those as the conversation's
// memory would be worse than degrading this once (rule 8).

export type SummarizerFailure = 'error' | 'timeout' | 'empty' | 'aborted' | 'truncated' | 'refused';

export type ReadReply =
  | { ok: true; text: string; promptTokens?: number; completionTokens?: number; cachedTokens?: number; writtenTokens?: number }
  | { ok: false; reason: SummarizerFailure; detail: string };

interface Completion {
  error?: unknown;
  choices?: { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

type ReadFailure = Extract<ReadReply, { ok: false }>;

/**
 * A summarizer's reply body as an object of the API's shape, or why it is not one: not JSON, not an
 * object, or an error object (`isError`), quoted from the body as sent (JSON.stringify of an error
 * nested deep would overflow the stack). Every API's reader starts here.
 */
export function replyObject<T extends object>(body: string, isError: (json: T) => boolean): { json: T } | ReadFailure {
  let json: T;
  try {
    json = JSON.parse(body) as T;
  } catch {
    return { ok: false, reason: 'error', detail: `summarizer reply is not JSON: ${body.slice(0, 200)}` };
  }
  if (json === null || typeof json !== 'object') return { ok: false, reason: 'error', detail: 'summarizer reply is not an object' };
  if (isError(json)) return { ok: false, reason: 'error', detail: `summarizer answered an error: ${body.slice(0, 200)}` };
  return { json };
}

export function readSummarizerReply(body: string): ReadReply {
  const read = replyObject<Completion>(body, (j) => Boolean(j.error));
  if (!('json' in read)) return read;
  const { json } = read;
  const choice = json.choices?.[0];
  const refusal = choice?.message?.refusal;
  if (typeof refusal === 'string' && refusal !== '') return { ok: false, reason: 'refused', detail: 'summarizer refused' };
  if (choice?.finish_reason === 'content_filter') return { ok: false, reason: 'refused', detail: 'summarizer reply was filtered' };
  if (choice?.finish_reason === 'length') return { ok: false, reason: 'truncated', detail: 'summarizer reply was cut off at its token limit' };
  const content = choice?.message?.content;
  const text = typeof content === 'string' ? content.trim() : '';
  if (!text) return { ok: false, reason: 'empty', detail: 'summarizer returned no text' };
  // Cached input is billed apart (a summarizer call that shares the conversation's cached prefix).
  const cachedTokens = usageReportOf(json)?.cachedTokens;
  return { ok: true, text, promptTokens: json.usage?.prompt_tokens, completionTokens: json.usage?.completion_tokens, ...(cachedTokens === undefined ? {} : { cachedTokens }) };
}
