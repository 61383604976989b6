import type { ChatMessage } from '../messages/types.js';
import { type ReadReply, replyObject } from './reply.js';

// The summarizer's call on an upstream that speaks Anthropic's Messages API (`api: anthropic`):
// the same prompt, its system messages as `system`, the rest as user/assistant turns of text;
// the reply read as strictly as a chat completion (reply.ts): only a message that ended on its own
// (`end_turn`) with text is a summary.

const ANTHROPIC_VERSION = '2023-06-01';

function text(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('\n');
}

export function anthropicSummarizerBody(model: string, messages: readonly ChatMessage[], maxTokens: number): string {
  const system = messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => text(m.content));
  const turns = messages
    .filter((m) => m.role !== 'system' && m.role !== 'developer')
    .map((m) => ({ role: m.role === 'assistant' ? 'assistant' : 'user', content: text(m.content) }));
  return JSON.stringify({ model, max_tokens: maxTokens, ...(system.length > 0 ? { system: system.join('\n\n') } : {}), messages: turns });
}

const BEARER = /^bearer\s+/i;

/** The headers of the call: the upstream's own key as `x-api-key`, else the client's credential in the header it came in. */
export function anthropicSummarizerHeaders(apiKey: string | undefined, credential: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'anthropic-version': ANTHROPIC_VERSION };
  if (apiKey) headers['x-api-key'] = apiKey;
  else if (credential && BEARER.test(credential)) headers.authorization = credential;
  else if (credential) headers['x-api-key'] = credential;
  return headers;
}

interface AnthropicReply {
  type?: unknown;
  error?: unknown;
  content?: { type?: unknown; text?: unknown }[];
  stop_reason?: unknown;
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
}

export function readAnthropicSummarizerReply(body: string): ReadReply {
  const read = replyObject<AnthropicReply>(body, (j) => j.type === 'error' || Boolean(j.error));
  if (!('json' in read)) return read;
  const { json } = read;
  if (json.stop_reason === 'refusal') return { ok: false, reason: 'refused', detail: 'summarizer refused' };
  if (json.stop_reason === 'max_tokens') return { ok: false, reason: 'truncated', detail: 'summarizer reply was cut off at its token limit' };
  const content = Array.isArray(json.content) ? json.content : [];
  const out = content
    .map((b) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .join('')
    .trim();
  if (!out) return { ok: false, reason: 'empty', detail: 'summarizer returned no text' };
  const u = json.usage;
  const prompt = u ? (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) : undefined;
  // Cache reads and writes are billed apart (a summarizer call on the conversation's own cached prefix).
  const cache = u ? { cachedTokens: u.cache_read_input_tokens ?? 0, writtenTokens: u.cache_creation_input_tokens ?? 0 } : {};
  return { ok: true, text: out, promptTokens: prompt, completionTokens: u?.output_tokens, ...cache };
}
