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
  /** Delay before the response headers of every chat request. */
  latencyMs?: number;
  /** Chat requests for this model are summarizer calls: answered with an extractive summary. */
  summarizerModel?: string;
  /** The summarizer drops every identifier (ids, paths, URLs, numbers) from its summaries. */
  lossySummarizer?: boolean;
  /** Delay before summarizer responses; falls back to latencyMs. */
  summarizerLatencyMs?: number;
  /** Delay between SSE events. */
  chunkDelayMs?: number;
  /** Exact prompt_tokens to report; default is a rough ceil(JSON(messages).length / 4). */
  promptTokens?: (req: RecordedRequest) => number;
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
  /** Assistant text of a chat completion. */
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Content deltas to stream, one per chunk, instead of splitting `content`. */
  stream?: { chunks?: string[] };
  /** Extra delay before the headers, on top of the configured latency. */
  delayMs?: number;
  /** Destroy the socket after writing this many body bytes. */
  resetAfterBytes?: number;
  /** Force the usage block on (even without stream_options.include_usage) or off. */
  usage?: boolean;
  finishReason?: string;
  /** Streaming only: emit `data: {"error": sseError}` after the content, then end without [DONE]. */
  sseError?: unknown;
  /** Go silent once the headers are out (a stream: after `afterEvents` events), then carry on. */
  stall?: ScriptedStall;
  /** Answer with this many bytes of SSE filler, written as fast as the connection accepts them. */
  flood?: number;
}

export interface ScriptedStall {
  ms: number;
  /** Streams only: SSE events sent before the silence; default 0. */
  afterEvents?: number;
  /** During the silence, send an SSE comment (`: ping`) this often, as servers do to keep streams open. */
  pingEveryMs?: number;
}

export interface EnqueueOptions {
  /** Only a chat request for this model takes the reply. */
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
