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

export function readSummarizerReply(body: string): ReadReply {
  let json: Completion;
  try {
    json = JSON.parse(body) as Completion;
  } catch {
    return { ok: false, reason: 'error', detail: `summarizer reply is not JSON: ${body.slice(0, 200)}` };
  }
  if (json === null || typeof json !== 'object') return { ok: false, reason: 'error', detail: 'summarizer reply is not an object' };
  // Quoted from the body as sent: JSON.stringify of an error nested deep would overflow the stack.
  if (json.error) return { ok: false, reason: 'error', detail: `summarizer answered an error: ${body.slice(0, 200)}` };
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
