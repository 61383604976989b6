import type { ModelConfig } from '../config/config.js';
import type { Identity } from '../conversation/identify.js';
import type { OutcomePart } from '../observability/outcome.js';
import type { CostDecisionLog } from '../observability/request-log.js';
import { summarizerPrices } from '../pricing/model-prices.js';
import { costOf } from '../pricing/prices.js';
import type { Pause } from '../slicing/slicer.js';
import type { ConversationKey } from '../store/store.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { SummarizerUsage } from './make-summary.js';
import type { PipelineDeps } from './pipeline-deps.js';
import type { SharedPrefixSource } from './shared-prefix.js';

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
  /** The conversation's short hash, for log lines. */
  conversation: string | undefined;
  /** What this request's own (inline) summarizer calls made and cost: part of its outcome (route-plan.ts). */
  summarized?: SummarizerTally | undefined;
  /** The cost model's figures for a cut weighed on this request (decide.ts): part of its outcome too. */
  weighed?: { costDecision?: CostDecisionLog } | undefined;
  signal: AbortSignal;
  /** Where the engine's work on a big request yields to the event loop. */
  pause: Pause;
  /** The client's Authorization, for summarizer calls on an upstream without its own key. */
  authorization: string | undefined;
  /** The request as recap forwards it, for a summarizer on the conversation's cached prefix (`summarizer.shared_prefix`). */
  sharedPrefix?: SharedPrefixSource | undefined;
  recordSummarizer(mode: 'inline' | 'background', result: SummarizerOutcome, ms: number): void;
}

/** The summarizer calls one request made inline, added up as they are made. */
export interface SummarizerTally {
  calls: number;
  tokens: number;
  /** The last call's duration. */
  ms: number;
  cost?: number;
}

/** The outcome's part of a request's own summarizer calls. */
export function summarizerPart(t: SummarizerTally): OutcomePart {
  return { summarizerCalls: t.calls, summarizerTokens: t.tokens, summarizerMs: t.ms, ...(t.cost !== undefined ? { summarizerCost: t.cost } : {}) };
}

/**
 * Counts a summarizer call in the metrics (the tenant's allowance settles its own reservation:
 * span-checkpoint.ts), and an inline one in the request's `tally`.
 */
export function summarizerRecorder(deps: PipelineDeps, model: ModelConfig, tenant: string, tally?: SummarizerTally): StepContext['recordSummarizer'] {
  const s = model.compaction.summarizer;
  const summarizerModel = s?.shared_prefix ? model.match : (s?.model ?? 'none');
  const prices = summarizerPrices(deps.config.models, model);
  return (mode, result, ms) => {
    deps.metrics.summarizerCalls.inc({ model: summarizerModel, outcome: result.ok ? 'ok' : (result.reason ?? 'error'), mode }, result.calls);
    deps.metrics.summarizerDuration.observe({ mode }, ms / 1000);
    deps.metrics.summarizerTokens.inc({ direction: 'total' }, result.summarizerTokens);
    const u = result.usage;
    const cost = prices && u ? costOf(prices, { prompt: u.prompt, cached: u.cached, written: u.written ?? 0, output: u.output }) : undefined;
    // A summarizer call is money recap spent: it counts against what recap saved (background calls too).
    if (cost !== undefined) {
      deps.metrics.cost.inc({ model: model.match }, cost);
      deps.metrics.costSaved.dec({ model: model.match }, cost);
    }
    if (mode === 'inline' && tally) {
      tally.ms = Math.round(ms);
      tally.calls += result.calls;
      tally.tokens += result.summarizerTokens;
      if (cost !== undefined) tally.cost = (tally.cost ?? 0) + cost;
    } else {
      // Spent for no request in particular: the overview counts it all the same.
      deps.events.spend(tenant, model.match, result.calls, result.summarizerTokens);
    }
  };
}
