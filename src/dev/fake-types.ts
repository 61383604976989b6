// Public shapes of the fake OpenAI-compatible upstream (see fake-upstream.ts).
import type { IncomingHttpHeaders } from 'node:http';

export interface RecordedRequest {
  method: string;
  /** The request target as received, query string included. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed JSON body, when it parses; `any` because tests read whatever the client sent. */
  json?: any;
  receivedAt: number;
  /** The TCP port the request came from: tells which process sent it (test/helpers/procfs.ts). */
  remotePort?: number;
  /** The client closed the connection before the response ended. */
  closedEarly: boolean;
  /** Body bytes a `flood` reply has handed to the socket so far. */
  floodedBytes?: number;
}

export interface FakeUpstreamOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Delay before the response headers of every model request (chat completions and responses). */
  latencyMs?: number;
  /** Chat requests for this model are summarizer calls: answered with an extractive summary. */
  summarizerModel?: string;
  /** The summarizer drops every identifier (ids, paths, URLs, numbers) from its summaries. */
  lossySummarizer?: boolean;
  /** Delay before summarizer responses; falls back to latencyMs. */
  summarizerLatencyMs?: number;
  /** Delay between SSE events. */
  chunkDelayMs?: number;
  /**
   * Exact prompt_tokens (chat) or input_tokens (responses) to report; default is a rough
   * ceil(JSON(messages).length / 4), or ceil(JSON([instructions, input]).length / 4).
   */
  promptTokens?: (req: RecordedRequest) => number;
  /**
   * Of those, the tokens to report read from the provider's prompt cache (chat
   * `prompt_tokens_details.cached_tokens`, Responses `input_tokens_details.cached_tokens`), e.g.
   * from a simulated cache (prompt-cache.ts); default: chat reports no details, Responses 0.
   */
  cachedTokens?: (req: RecordedRequest, promptTokens: number) => number;
  /** Keep only the newest N recorded requests (and their sent bytes); default unlimited. */
  maxRecorded?: number;
}

export interface ScriptedToolCall {
  name: string;
  arguments: string;
}

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent verbatim (a string or a Buffer, e.g. gzip bytes) or as JSON, instead of the route's generated body. */
  body?: unknown;
  /** Assistant text: a chat completion's message, or a response's `message` output item. */
  content?: string;
  /** Chat `tool_calls`, or a response's `function_call` output items (several: parallel calls). */
  toolCalls?: ScriptedToolCall[];
  /** Responses only: a `reasoning` output item before the others. */
  reasoning?: ScriptedReasoning;
  /** Content deltas to stream, one per chunk, instead of splitting `content`. */
  stream?: { chunks?: string[] };
  /** Extra delay before the headers, on top of the configured latency. */
  delayMs?: number;
  /** Answer only once this settles (after the delays): a test holds replies back until the state it waits for is reached. */
  heldUntil?: Promise<unknown>;
  /** Destroy the socket after writing this many body bytes. */
  resetAfterBytes?: number;
  /** Force the usage block on (even without stream_options.include_usage) or off. */
  usage?: boolean;
  /** Chat's finish_reason; on responses `length` and `content_filter` make the response `incomplete`. */
  finishReason?: string;
  /**
   * Streaming only: after the content, chat emits `data: {"error": sseError}` and ends without
   * [DONE]; responses emit an `error` event carrying it and end without `response.completed`.
   */
  sseError?: unknown;
  /** Go silent once the headers are out (a stream: after `afterEvents` events), then carry on. */
  stall?: ScriptedStall;
  /** Answer with this many bytes of SSE filler, written as fast as the connection accepts them. */
  flood?: number;
}

export interface ScriptedReasoning {
  /** The summary_text parts of the item's `summary`; none by default, as when no summary is asked. */
  summary?: string[];
  /** Send `encrypted_content`; default: when the request's `include` asks for "reasoning.encrypted_content". */
  encrypted?: boolean;
}

export interface ScriptedStall {
  ms: number;
  /** Streams only: SSE events sent before the silence; default 0. */
  afterEvents?: number;
  /** During the silence, send an SSE comment (`: ping`) this often, as servers do to keep streams open. */
  pingEveryMs?: number;
}

export interface EnqueueOptions {
  /** Only a request (chat or responses) for this model takes the reply. */
  model?: string;
  /** Only a request whose path (without query) equals this takes the reply. */
  path?: string;
}

export interface FakeUpstream {
  /** Base URL as an SDK would use it: http://127.0.0.1:PORT/v1 */
  url: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  requests: RecordedRequest[];
  /** POST /v1/chat/completions, excluding summarizer calls. */
  chatRequests(): RecordedRequest[];
  summarizerRequests(): RecordedRequest[];
  /** POST /v1/responses. */
  responsesRequests(): RecordedRequest[];
  /**
   * Script the next matching reply (FIFO). A reply without `model` never goes to a summarizer
   * call, so scripting the main model is not disturbed by a compaction happening first.
   */
  enqueue(reply: ScriptedReply, opts?: EnqueueOptions): void;
  /** Consulted for every request (summarizer calls included) when no queued reply matches. */
  setDefault(fn: (req: RecordedRequest) => ScriptedReply | undefined): void;
  setOptions(o: Partial<FakeUpstreamOptions>): void;
  onClose(cb: (r: RecordedRequest) => void): void;
  /** Exact response body bytes the fake sent for that request. */
  sentBytes(r: RecordedRequest): Buffer;
  /** Forget requests, queued replies, the default script and close callbacks. */
  reset(): void;
  close(): Promise<void>;
}
