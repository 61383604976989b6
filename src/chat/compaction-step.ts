import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { ModelConfig } from '../config.js';
import type { RequestLog } from './request-log.js';
import type { ChatMessage, ChatRequest } from './types.js';

export interface PrepareInput {
  req: IncomingMessage;
  body: ChatRequest;
  model: ModelConfig | undefined;
  signal: AbortSignal;
  log: RequestLog;
}

export interface ResponseObserver {
  onChunk(chunk: Buffer): void;
  /** `usage.prompt_tokens` the upstream reported, once the body has passed. */
  promptTokens(): number | undefined;
}

/** What the compaction step decided for one request, and what it does once the response is out. */
export interface ChatPlan {
  /** The messages to send upstream, or null to forward the client's bytes untouched. */
  messages: ChatMessage[] | null;
  headers: Record<string, string>;
  /**
   * The upstream answered with these headers. A new checkpoint is written here, once the upstream
   * accepted the trimmed request and before the client sees the reply, so that the client's next
   * request (to any replica) finds it.
   */
  onUpstreamResponse(status: number, headers: IncomingHttpHeaders): Promise<ResponseObserver | undefined>;
  /** Runs after the whole response reached the client: record write, calibration, background. */
  afterSuccess(observer: ResponseObserver | undefined): Promise<void>;
  /** Runs when the request ended any other way: releases what prepare() holds, writes nothing. */
  abandon(): Promise<void>;
}

export interface CompactionStep {
  prepare(input: PrepareInput): Promise<ChatPlan>;
}
