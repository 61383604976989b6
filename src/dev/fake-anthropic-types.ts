// Public shapes of the fake Anthropic Messages upstream (see fake-anthropic.ts).
import type { RecordedRequest, ScriptedStall } from './fake-types.js';

export type { RecordedRequest } from './fake-types.js';

export interface FakeAnthropicOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Delay before the response headers of every POST /v1/messages (summarizer calls included). */
  latencyMs?: number;
  /** Delay between SSE events. */
  chunkDelayMs?: number;
  /** Requests for this model are summarizer calls: answered with an extractive summary. */
  summarizerModel?: string;
  /**
   * The model's context window by the fake's own count (fake-anthropic-count.ts): a request whose
   * input plus `max_tokens` is larger is refused with Anthropic's 400 "prompt is too long".
   */
  contextWindow?: number;
}

export interface ScriptedToolUse {
  name: string;
  /** The tool's input object. */
  input: Record<string, unknown>;
}

export interface AnthropicScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent verbatim (a string) or as JSON, instead of the generated message. */
  body?: unknown;
  /** A `thinking` block first (signed: the fake verifies the signature when the block comes back). */
  thinking?: string;
  /** A `redacted_thinking` block after the thinking (its `data` signed as well). */
  redactedThinking?: boolean;
  /** Text block. */
  text?: string;
  /** `tool_use` blocks after the text (several: parallel calls). */
  toolUses?: ScriptedToolUse[];
  /** `stop_reason`; default `tool_use` when the reply uses tools, else `end_turn`. */
  stopReason?: string;
  /** Extra delay before the headers. */
  delayMs?: number;
  /** Streaming only: after the content blocks, an `error` event with this error object and no message_delta/message_stop. */
  sseError?: { type: string; message: string };
  /** Destroy the socket after writing this many body bytes. */
  resetAfterBytes?: number;
  /** Go silent once the headers are out (a stream: after `afterEvents` events), then carry on. */
  stall?: ScriptedStall;
}

export interface AnthropicEnqueueOptions {
  /** Only a request for this model takes the reply (a summarizer call needs it). */
  model?: string;
}

/** How the fake counted one request (its own count, as Anthropic bills it). */
export interface FakeCount {
  /** Everything: tools, system and messages. */
  total: number;
  /** Of those, read from the simulated prompt cache... */
  cacheRead: number;
  /** ...and written to it (up to the request's last cache_control breakpoint). */
  cacheCreation: number;
}

export interface FakeAnthropic {
  /** Base URL as recap's config takes it: http://127.0.0.1:PORT/v1 */
  url: string;
  /** http://127.0.0.1:PORT, as ANTHROPIC_BASE_URL and the SDK's baseURL take it. */
  origin: string;
  requests: RecordedRequest[];
  /** POST /v1/messages of the application (not the summarizer), with the fake's count of each. */
  messagesRequests(): RecordedRequest[];
  summarizerRequests(): RecordedRequest[];
  /** The fake's own count of a recorded POST /v1/messages. */
  countOf(r: RecordedRequest): FakeCount | undefined;
  /** The 400s the fake answered itself (a bad request by Anthropic's rules), with their messages. */
  refusals(): { request: RecordedRequest; message: string }[];
  /** Script the next matching reply (FIFO); an unfiltered reply never goes to a summarizer call. */
  enqueue(reply: AnthropicScriptedReply, opts?: AnthropicEnqueueOptions): void;
  /** Consulted when no queued reply matches (summarizer calls included). */
  setDefault(fn: (req: RecordedRequest) => AnthropicScriptedReply | undefined): void;
  setOptions(o: Partial<FakeAnthropicOptions>): void;
  /** Exact response body bytes the fake sent for that request. */
  sentBytes(r: RecordedRequest): Buffer;
  reset(): void;
  close(): Promise<void>;
}
