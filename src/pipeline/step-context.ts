import type { RequestLog } from '../chat/request-log.js';
import type { ModelConfig } from '../config.js';
import type { Identity } from '../conversation/identify.js';
import type { ConversationKey } from '../store/store.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { PipelineDeps } from './pipeline-deps.js';

/** One chat request's state while the compaction step works on it. */
export interface StepContext {
  deps: PipelineDeps;
  model: ModelConfig;
  identity: Identity;
  key: ConversationKey;
  counter: TokenCounter;
  log: RequestLog;
  signal: AbortSignal;
  /** The client's Authorization, for summarizer calls on an upstream without its own key. */
  authorization: string | undefined;
  recordSummarizer(mode: 'inline' | 'background', result: { ok: boolean; calls: number; summarizerTokens: number; reason?: string }, ms: number): void;
}
