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
  /** The request went upstream before prepare(), as it provably needs no compaction (forward-first.ts). */
  forwardedFirst: boolean;
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
  /** The upstream answered with these headers: what watches its body go by (usage, for calibration). */
  observe(status: number, headers: IncomingHttpHeaders): ResponseObserver | undefined;
  /**
   * Runs once the upstream's whole reply reached the client: the new checkpoint is written (when
   * the upstream answered 2xx) and the compaction lock released, then calibration and
   * background preparation. A reply that breaks, times out or loses its client writes nothing.
   */
  afterSuccess(status: number, observer: ResponseObserver | undefined): Promise<void>;
  /** Runs when the request ended any other way: releases what prepare() holds, writes nothing. */
  abandon(): Promise<void>;
}

export interface CompactionStep {
  prepare(input: PrepareInput): Promise<ChatPlan>;
}
