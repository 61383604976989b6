import type { ModelConfig } from '../config/config.js';
import type { Identity } from '../conversation/identify.js';
import type { RequestLog } from '../observability/request-log.js';
import { summarizerPrices } from '../pricing/model-prices.js';
import { costOf } from '../pricing/prices.js';
import type { Pause } from '../slicing/slicer.js';
import type { ConversationKey } from '../store/store.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { SummarizerUsage } from './make-summary.js';
import type { PipelineDeps } from './pipeline-deps.js';

export interface SummarizerOutcome {
  ok: boolean;
  calls: number;
  summarizerTokens: number;
  reason?: string;
  usage?: SummarizerUsage;
}

/** One request's state while the engine works on it (and a background job's, made from it). */
export interface StepContext {
  deps: PipelineDeps;
  model: ModelConfig;
  identity: Identity;
  key: ConversationKey;
  counter: TokenCounter;
  /** False for a caller whose records recap neither keeps nor reads. */
  keepsRecords: boolean;
  /** Audit mode: `key` is the audit checkpoints' key, and a summary is projected, never made (audit.ts). */
  audit: boolean;
  log: RequestLog;
  signal: AbortSignal;
  /** Where the engine's work on a big request yields to the event loop. */
  pause: Pause;
  /** The client's Authorization, for summarizer calls on an upstream without its own key. */
  authorization: string | undefined;
  recordSummarizer(mode: 'inline' | 'background', result: SummarizerOutcome, ms: number): void;
}

/** Counts a summarizer call in the metrics (the tenant's allowance settles its own reservation: span-checkpoint.ts). */
export function summarizerRecorder(deps: PipelineDeps, model: ModelConfig, tenant: string, log?: RequestLog): StepContext['recordSummarizer'] {
  const summarizerModel = model.compaction.summarizer?.model ?? 'none';
  const prices = summarizerPrices(deps.config.models, model);
  return (mode, result, ms) => {
    deps.metrics.summarizerCalls.inc({ model: summarizerModel, outcome: result.ok ? 'ok' : (result.reason ?? 'error'), mode }, result.calls);
    deps.metrics.summarizerDuration.observe({ mode }, ms / 1000);
    deps.metrics.summarizerTokens.inc({ direction: 'total' }, result.summarizerTokens);
    const u = result.usage;
    const cost = prices && u ? costOf(prices, { prompt: u.prompt, cached: u.cached, written: 0, output: u.output }) : undefined;
    // A summarizer call is money recap spent: it counts against what recap saved (background calls too).
    if (cost !== undefined) {
      deps.metrics.cost.inc({ model: model.match }, cost);
      deps.metrics.costSaved.dec({ model: model.match }, cost);
    }
    if (mode === 'inline' && log) {
      log.summarizerMs = Math.round(ms);
      log.summarizerCalls = (log.summarizerCalls ?? 0) + result.calls;
      log.summarizerTokens = (log.summarizerTokens ?? 0) + result.summarizerTokens;
      if (cost !== undefined) log.summarizerCost = (log.summarizerCost ?? 0) + cost;
    } else {
      // Spent for no request in particular: the overview counts it all the same.
      deps.events.spend(tenant, model.match, result.calls, result.summarizerTokens);
    }
  };
}
