import type { IncomingMessage } from 'node:http';
import type { ModelConfig } from '../config.js';
import type { RoutePlan } from '../pipeline/route-plan.js';
import type { RequestLog } from './request-log.js';
import type { ChatMessage, ChatRequest } from './types.js';

export type { ResponseObserver } from '../pipeline/route-plan.js';

export interface PrepareInput {
  req: IncomingMessage;
  body: ChatRequest;
  model: ModelConfig | undefined;
  signal: AbortSignal;
  log: RequestLog;
  /** The request went upstream before prepare(), as it provably needs no compaction (forward-first.ts). */
  forwardedFirst: boolean;
  /** Size of the client's body: what a background job planned from this request holds. */
  bytes: number;
}

/** What the compaction step decided for one chat request, and what it does once the response is out. */
export type ChatPlan = RoutePlan<ChatMessage>;

export interface CompactionStep {
  prepare(input: PrepareInput): Promise<ChatPlan>;
}
