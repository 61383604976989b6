import { acceptSummary } from '../compaction/validate-summary.js';
import { countLedger } from '../metrics.js';
import type { Checkpoint } from '../store/store.js';
import { type Analysis, restTokensBetween } from './analyze.js';
import type { Base } from './choose-view.js';
import { makeSummary } from './make-summary.js';
import type { StepContext } from './step-context.js';

// The one way a new checkpoint is made, inline or in the background: summarize the messages
// between the base's coverage and `covered` onto the base's summary, check the result (rule 8),
// and describe it as a checkpoint of that prefix (rule 6).

export type SpanCheckpoint = { ok: true; checkpoint: Checkpoint } | { ok: false; reason: string };

export async function checkpointForSpan(
  ctx: StepContext,
  a: Analysis,
  base: Base,
  covered: number,
  strategy: 'summarize' | 'template' | 'window',
  mode: 'inline' | 'background',
  signal: AbortSignal,
): Promise<SpanCheckpoint> {
  const { compaction } = ctx.model;
  const evictedTokens = restTokensBetween(a, base.covered, covered);
  const started = performance.now();
  const result = await makeSummary({
    strategy,
    compaction,
    previous: base.summary,
    evicted: a.rest.slice(base.covered, covered),
    evictedTokens,
    countText: ctx.counter.countText,
    summarizer: ctx.deps.summarizer,
    defaultUpstream: ctx.model.upstream,
    authorization: ctx.authorization,
    signal,
  });
  if (result.calls > 0) ctx.recordSummarizer(mode, result, performance.now() - started);
  if (!result.ok) return { ok: false, reason: `summarizer_${result.reason}` };
  const summaryTokens = a.summaryTokens(result.text);
  if (strategy === 'summarize') {
    const verdict = acceptSummary(result.text, a.summaryTokens(base.summary) + evictedTokens, summaryTokens, compaction.summary_max_tokens);
    if (verdict !== 'ok') {
      ctx.deps.metrics.summarizerCalls.inc({ model: compaction.summarizer!.model, outcome: verdict, mode });
      return { ok: false, reason: `summary_${verdict}` };
    }
  }
  if (result.ledger) countLedger(ctx.deps.metrics, ctx.model.match, result.ledger);
  return {
    ok: true,
    checkpoint: {
      covered,
      chainHash: a.links[covered - 1]!,
      summary: result.text,
      summaryTokens,
      coveredTokens: restTokensBetween(a, 0, covered),
      model: strategy === 'summarize' ? compaction.summarizer!.model : strategy,
      createdAt: Date.now(),
    },
  };
}
