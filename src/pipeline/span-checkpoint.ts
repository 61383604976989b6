import type { Cut } from '../compaction/plan.js';
import { buildSummarizerMessages } from '../compaction/prompt.js';
import { openingTaskSpan } from '../compaction/units.js';
import { acceptSummary } from '../compaction/validate-summary.js';
import type { ChatMessage } from '../messages/types.js';
import { countLedger } from '../observability/metrics.js';
import type { Checkpoint } from '../store/store.js';
import { type Analysis, buildView } from './analyze.js';
import { leavesOut } from '../recall/session.js';
import { PROJECTED_SUMMARY } from './projected-summary.js';
import type { Base } from './choose-view.js';
import { makeSummary, type PrefixSummary, type SummaryResult } from './make-summary.js';
import type { StepContext } from './step-context.js';

// The one way a new checkpoint is made, inline or in the background: summarize what the cut takes
// out of the view onto the base's summary, check the result (rule 8), and describe it as a
// checkpoint of the request's prefix (rule 6), with what it keeps verbatim and clears (rules 2, 11).

export type SpanCheckpoint = { ok: true; checkpoint: Checkpoint } | { ok: false; reason: string };

/** A background job's reason for making nothing: its tenant's allowance is spent. */
export const TENANT_BUDGET_EXCEEDED = 'tenant_budget_exceeded';

export type Strategy = 'summarize' | 'template' | 'window';

function* range(start: number, end: number): Iterable<number> {
  for (let i = start; i < end; i++) yield i;
}

function sumOf(tokens: readonly number[], indices: Iterable<number>): number {
  let sum = 0;
  for (const i of indices) sum += tokens[i]!;
  return sum;
}

/** The items a checkpoint of this cut is about: what it covers and, beyond, up to its last cleared result. */
export function prefixOfCut(cut: Pick<Cut, 'covered' | 'cleared'>): number {
  return Math.max(cut.covered, (cut.cleared.at(-1) ?? -1) + 1);
}

/** The checkpoint of a view: the summary text it carries, over the request's first items. */
export function describeCheckpoint<T>(a: Analysis<T>, cut: Pick<Cut, 'covered' | 'kept' | 'cleared'>, summary: string, model: string): Checkpoint {
  const prefix = prefixOfCut(cut);
  const tokens = a.layout.tokens;
  let coveredTokens = 0;
  for (let i = 0; i < cut.covered; i++) coveredTokens += tokens[i]!;
  return {
    covered: cut.covered,
    prefix,
    chainHash: a.links[prefix - 1]!,
    kept: cut.kept,
    cleared: cut.cleared,
    summary,
    summaryTokens: a.summaryTokens(summary),
    coveredTokens: coveredTokens - sumOf(tokens, cut.kept),
    model,
    createdAt: Date.now(),
  };
}

/** What one summarizer call over the span costs at most, about: its whole prompt and a reply at the limit. */
function summarizerCostEstimate(ctx: StepContext, base: Base, evictedTokens: number, openingTask: boolean): number {
  const { compaction } = ctx.model;
  const maxTokens = compaction.summary_max_tokens;
  const frame = buildSummarizerMessages({ previousSummary: base.summary, transcript: '', maxTokens, promptOverride: compaction.prompt, openingTask });
  return ctx.counter.countText(frame.map((m) => m.content).join('\n')) + evictedTokens + maxTokens;
}

/** Where the view on `base` holds the request's item `i` (rest index), counted from its first item. */
function viewIndex<T>(a: Analysis<T>, base: Base, i: number): number {
  const head = a.pinned.length + (base.summary ? 1 : 0);
  const kept = base.kept.indexOf(i);
  return kept >= 0 ? head + kept : head + base.kept.length + (i - base.covered);
}

/**
 * The summarizer call on the conversation's cached prefix (`summarizer.shared_prefix`): the body
 * recap forwards with the view on `base` (what it forwarded last, when the previous request used
 * that base: shared-prefix.ts), cut after the last item the cut evicts.
 */
function prefixSummary<T>(ctx: StepContext, a: Analysis<T>, base: Base, cut: Cut): PrefixSummary | undefined {
  const source = ctx.sharedPrefix;
  const s = ctx.model.compaction.summarizer;
  if (!source || !s?.shared_prefix) return undefined;
  const view = base.checkpoint ? buildView(a, base.summary, base) : null;
  let keep = 0;
  for (const i of cut.evicted) keep = Math.max(keep, viewIndex(a, base, i) + 1);
  return {
    model: source.model,
    upstream: ctx.model.upstream,
    request(instruction, maxTokens) {
      const forwarded = source.forwarded(view, view !== null && leavesOut(base));
      const body = source.wire.body(forwarded, { keep, instruction, maxTokens, tokenLimitField: s.token_limit_field });
      return { body, path: source.path, readReply: source.wire.readReply, headers: source.headers };
    },
  };
}

/** The summarizer's name in metrics and checkpoints: the conversation model's entry when it summarizes on its own prefix. */
function summarizerName(ctx: StepContext): string {
  const s = ctx.model.compaction.summarizer!;
  return s.shared_prefix || s.model === undefined ? ctx.model.match : s.model;
}

export async function checkpointForCut<T>(
  ctx: StepContext,
  a: Analysis<T>,
  base: Base,
  cut: Cut,
  strategy: Strategy,
  mode: 'inline' | 'background',
  signal: AbortSignal,
): Promise<SpanCheckpoint> {
  const { compaction } = ctx.model;
  // What enforcing would have written, without the call: projected at its limit (audit.ts).
  if (ctx.audit && strategy === 'summarize') return { ok: true, checkpoint: describeCheckpoint(a, cut, PROJECTED_SUMMARY, 'projected') };
  const evictedTokens = sumOf(a.layout.tokens, cut.evicted);
  // The opening task taken in by this summary (it does not stay verbatim): the summary says so,
  // and the ledger counts what it states as the task's.
  const task = openingTaskSpan(a.seg);
  const evicted: ChatMessage[] = [];
  let openingTask: { at: number; tokens: number } | undefined;
  for (const i of cut.evicted) {
    const m = a.wire.asChat(a.rest[i]!);
    if (m === null) continue;
    if (i === task?.start) openingTask = { at: evicted.length, tokens: sumOf(a.layout.tokens, range(task.start, task.end)) };
    evicted.push(m);
  }
  // The call's cost is held in the tenant's allowance before it is made (tenant-budget.ts); past
  // the allowance the cut is made with the `window` strategy inline, and not at all in the background.
  const reservation =
    strategy === 'summarize' ? await ctx.deps.tenantBudget.reserve(ctx.identity.tenant, summarizerCostEstimate(ctx, base, evictedTokens, openingTask !== undefined)) : null;
  const overBudget = strategy === 'summarize' && reservation === null;
  if (overBudget) {
    ctx.deps.metrics.tenantBudgetExceeded.inc();
    if (mode === 'background') return { ok: false, reason: TENANT_BUDGET_EXCEEDED };
  }
  const used: Strategy = overBudget ? 'window' : strategy;
  const prefix = used === 'summarize' ? prefixSummary(ctx, a, base, cut) : undefined;
  const started = performance.now();
  // Settled with what the call really cost; a call that threw spent nothing it could report.
  let result: SummaryResult | undefined;
  try {
    result = await makeSummary({
      strategy: used,
      compaction,
      previous: base.summary,
      evicted,
      evictedTokens,
      ...(openingTask === undefined ? {} : { openingTask }),
      countText: ctx.counter.countText,
      summarizer: ctx.deps.summarizer,
      defaultUpstream: ctx.model.upstream,
      authorization: ctx.authorization,
      signal,
      prefix,
    });
  } finally {
    reservation?.settle(result?.summarizerTokens ?? 0);
  }
  if (result.calls > 0) ctx.recordSummarizer(mode, result, performance.now() - started);
  if (!result.ok) return { ok: false, reason: `summarizer_${result.reason}` };
  if (used === 'summarize') {
    // The summarizer's max_tokens and the ledger are sized by the uncalibrated count: its limit is
    // calibrated like the summary's own count, or a calibrated model's factor (Claude's, ~1.3 over
    // the estimate) would refuse every summary that fills its limit.
    const scale = ctx.deps.tokens.scaleFor(ctx.model, ctx.identity.tenant);
    const verdict = acceptSummary(result.text, a.summaryTokens(base.summary) + evictedTokens, a.summaryTokens(result.text), compaction.summary_max_tokens, scale);
    if (verdict !== 'ok') {
      ctx.deps.metrics.summarizerCalls.inc({ model: summarizerName(ctx), outcome: verdict, mode });
      return { ok: false, reason: `summary_${verdict}` };
    }
  }
  if (result.ledger) countLedger(ctx.deps.metrics, ctx.model.match, result.ledger);
  return { ok: true, checkpoint: describeCheckpoint(a, cut, result.text, used === 'summarize' ? summarizerName(ctx) : used) };
}
