import type { ChatMessage } from '../messages/types.js';
import { traceSummarizer } from '../tracing/spans.js';
import type { UpstreamRegistry } from '../upstream/client.js';
import { anthropicSummarizerBody, anthropicSummarizerHeaders, readAnthropicSummarizerReply } from './anthropic.js';
import { type ReadReply, readSummarizerReply, type SummarizerFailure } from './reply.js';

export type { SummarizerFailure } from './reply.js';

export class SummarizerError extends Error {
  constructor(
    readonly reason: SummarizerFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SummarizerError';
  }
}

/**
 * A call on the conversation's own cached prefix (`summarizer.shared_prefix`, docs/cost.md): its
 * body built by the conversation's format from what recap forwarded, sent on the format's path,
 * its reply read by the format.
 */
export interface PrefixRequest {
  body: Buffer;
  /** Below the upstream's base URL, e.g. `/chat/completions`. */
  path: string;
  readReply(text: string): ReadReply;
  /** Headers of the client's the API needs to read the body as the conversation's (`anthropic-version`, `anthropic-beta`). */
  headers: Readonly<Record<string, string>>;
}

export interface SummarizerCall {
  model: string;
  upstream: string;
  /** The summarizer's prompt; empty for a call on the conversation's prefix. */
  messages: ChatMessage[];
  prefix?: PrefixRequest | undefined;
  maxTokens: number;
  /** Reasoning models take `max_completion_tokens`, older servers only `max_tokens`. */
  tokenLimitField: 'max_tokens' | 'max_completion_tokens';
  timeoutMs: number;
  /** The client's credential (its Authorization, or x-api-key), used only when the summarizer's upstream has no api_key. */
  authorization?: string;
  signal?: AbortSignal;
}

export interface SummarizerReply {
  text: string;
  promptTokens?: number;
  completionTokens?: number;
  /** Of promptTokens, those the provider read from its cache... */
  cachedTokens?: number;
  /** ...and those it wrote to it (Anthropic bills them apart). */
  writtenTokens?: number;
}

export type Summarizer = (call: SummarizerCall) => Promise<SummarizerReply>;

function openaiHeaders(apiKey: string | undefined, authorization: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  const auth = apiKey ? `Bearer ${apiKey}` : authorization;
  if (auth) headers.authorization = auth;
  return headers;
}

/** Where the call goes, with what: the summarizer's prompt as a chat completion or Anthropic message, or the body built on the conversation's prefix. */
function requestOf(call: SummarizerCall, apiKey: string | undefined, anthropic: boolean): { path: string; headers: Record<string, string>; body: string | Buffer } {
  const headers = anthropic ? anthropicSummarizerHeaders(apiKey, call.authorization) : openaiHeaders(apiKey, call.authorization);
  if (call.prefix) return { path: call.prefix.path, headers: { ...headers, ...call.prefix.headers }, body: call.prefix.body };
  if (anthropic) return { path: '/messages', headers, body: anthropicSummarizerBody(call.model, call.messages, call.maxTokens) };
  return { path: '/chat/completions', headers, body: JSON.stringify({ model: call.model, messages: call.messages, [call.tokenLimitField]: call.maxTokens }) };
}

/** One non-streaming chat completion (or Anthropic message, on an `api: anthropic` upstream) on the summarizer's upstream, bounded by its timeout. */
export function createSummarizer(upstreams: UpstreamRegistry): Summarizer {
  return traceSummarizer(async function summarize(call) {
    const upstream = upstreams.get(call.upstream);
    if (!upstream) throw new SummarizerError('error', `no upstream named ${call.upstream}`);
    const timeout = AbortSignal.timeout(call.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    const anthropic = upstream.config.api === 'anthropic';
    try {
      const res = await upstream.request({ method: 'POST', ...requestOf(call, upstream.config.api_key, anthropic), signal });
      const text = await res.body.text();
      // Only a 2xx is a summary. A redirect is not followed (undici does not) and not taken for one:
      // its target may be anywhere, and its body is whatever the upstream put there.
      if (res.statusCode < 200 || res.statusCode >= 300) throw new SummarizerError('error', `summarizer answered ${res.statusCode}: ${text.slice(0, 200)}`);
      const reply = call.prefix ? call.prefix.readReply(text) : anthropic ? readAnthropicSummarizerReply(text) : readSummarizerReply(text);
      if (!reply.ok) throw new SummarizerError(reply.reason, reply.detail);
      const { ok: _ok, ...read } = reply;
      return read;
    } catch (err) {
      if (err instanceof SummarizerError) throw err;
      if (timeout.aborted) throw new SummarizerError('timeout', `summarizer timed out after ${call.timeoutMs} ms`);
      if (call.signal?.aborted) throw new SummarizerError('aborted', 'request aborted');
      throw new SummarizerError('error', (err as Error).message);
    }
  });
}
