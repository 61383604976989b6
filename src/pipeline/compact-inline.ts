import { type Eviction, planCompaction, planDegrade, roundCosts } from '../compaction/plan.js';
import type { Checkpoint, ConversationRecord } from '../store/store.js';
import { type Analysis, buildView, candidates, uncoveredRounds } from './analyze.js';
import { type Base, chooseBase } from './choose-view.js';
import type { StepContext } from './step-context.js';
import { acquireCompactionLock, releaseCompactionLock, waitForCompaction } from './single-flight.js';
import { checkpointForSpan } from './span-checkpoint.js';
import type { ChatMessage } from '../chat/types.js';

// The request is over the trigger on every stored base: compact it now (rule 4), sharing the
// summarizer call with concurrent requests (rule 9), or degrade when the summary cannot be had
// (rule 8).

export interface Decision {
  action: 'none' | 'reused' | 'compacted' | 'degraded';
  /** The summary and covered count the forwarded view is built on. */
  base: Base;
  /** Messages after the pinned ones left out of the view: base.covered, plus dropped rounds when degraded. */
  omitted: number;
  /** What goes upstream, or null for the client's own bytes. */
  view: ChatMessage[] | null;
  /** The most compacted stored checkpoint that applies, when it is ahead of `base` (prepared, not yet needed). */
  furthest?: Base;
  /** A new checkpoint to write once the upstream's reply reached the client whole. */
  write?: { checkpoint: Checkpoint; lockToken: string | null; version: number };
  reason?: string;
}

export function costsOf(a: Analysis, base: Base) {
  return {
    pinnedTokens: a.pinnedTokens,
    summaryTokens: a.summaryTokens(base.summary),
    rounds: roundCosts(uncoveredRounds(a, base), a.perMessage),
    primingTokens: a.primingTokens,
  };
}

function degrade(ctx: StepContext, a: Analysis, base: Base, budget: number, reason: string): Decision {
  const drop = planDegrade(costsOf(a, base), budget);
  ctx.deps.logger.warn({ conversation: ctx.log.conversation, reason }, 'compaction degraded: dropping oldest rounds for this request');
  const omitted = base.covered + drop.messages;
  return { action: 'degraded', base, omitted, view: buildView(a, base.summary, omitted), reason };
}

export async function compactInline(ctx: StepContext, a: Analysis, base: Base, version: number, budget: number): Promise<Decision> {
  const compaction = ctx.model.compaction;
  const plan = planCompaction(costsOf(a, base), budget, compaction);
  if (plan.kind !== 'compact') return unchanged(a, base);

  let strategy = compaction.strategy as 'summarize' | 'template' | 'window';
  if (strategy === 'summarize' && !(await ctx.deps.proofs.mayPay(ctx.identity.tenant, ctx.model))) return degrade(ctx, a, base, budget, 'credential_not_yet_accepted');
  if (strategy === 'summarize' && !(await ctx.deps.tenantBudget.allows(ctx.identity.tenant))) {
    ctx.deps.metrics.tenantBudgetExceeded.inc();
    strategy = 'window';
  }
  if (strategy !== 'summarize') return summarizeEviction(ctx, a, base, plan, strategy, null, version, budget);
  const lock = await acquireCompactionLock(ctx.deps.records, ctx.key, compaction.summarizer!.timeout_ms);
  if (!lock.held && lock.reason === 'busy') return afterWaiting(ctx, a, budget);
  if (!lock.held) return summarizeEviction(ctx, a, base, plan, strategy, null, version, budget);
  // The record was read before the lock: a compaction that finished in between (its checkpoint is
  // written once its reply reached its client) must be used, not made again.
  const record = await ctx.deps.records.load(ctx.key);
  if (record === 'unavailable' || (record?.version ?? 0) === version) return summarizeEviction(ctx, a, base, plan, strategy, lock.token, version, budget);
  return compactFromLatest(ctx, a, budget, lock.token, record);
}

/** Someone else is compacting this conversation: wait for it, then use what it wrote. */
async function afterWaiting(ctx: StepContext, a: Analysis, budget: number): Promise<Decision> {
  const waited = await waitForCompaction(ctx.deps.records, ctx.key, ctx.deps.config.server.compaction_wait_ms, ctx.signal);
  const record = await ctx.deps.records.load(ctx.key);
  const fresh = record === 'unavailable' ? null : record;
  const { choice, fits } = chooseBase(candidates(a, fresh), ctx.model.compaction.trigger_ratio * budget);
  if (fits) return unchanged(a, choice.base);
  if (!waited) return degrade(ctx, a, choice.base, budget, 'compaction_wait_timeout');
  const lock = await acquireCompactionLock(ctx.deps.records, ctx.key, ctx.model.compaction.summarizer!.timeout_ms);
  if (!lock.held && lock.reason === 'busy') return degrade(ctx, a, choice.base, budget, 'compaction_busy');
  return compactFromLatest(ctx, a, budget, lock.held ? lock.token : null, fresh);
}

/** With the lock (or without a store): use what `record` holds if it fits, else compact from it. */
async function compactFromLatest(ctx: StepContext, a: Analysis, budget: number, lockToken: string | null, record: ConversationRecord | null): Promise<Decision> {
  const { choice, fits } = chooseBase(candidates(a, record), ctx.model.compaction.trigger_ratio * budget);
  const plan = fits ? null : planCompaction(costsOf(a, choice.base), budget, ctx.model.compaction);
  if (plan?.kind !== 'compact') {
    if (lockToken) await releaseCompactionLock(ctx.deps.records, ctx.key, lockToken);
    return unchanged(a, choice.base);
  }
  return summarizeEviction(ctx, a, choice.base, plan, 'summarize', lockToken, record?.version ?? 0, budget);
}

async function summarizeEviction(
  ctx: StepContext,
  a: Analysis,
  base: Base,
  eviction: Eviction,
  strategy: 'summarize' | 'template' | 'window',
  lockToken: string | null,
  version: number,
  budget: number,
): Promise<Decision> {
  const covered = base.covered + eviction.messages;
  const made = await checkpointForSpan(ctx, a, base, covered, strategy, 'inline', ctx.signal);
  if (!made.ok) {
    if (lockToken) await releaseCompactionLock(ctx.deps.records, ctx.key, lockToken);
    return degrade(ctx, a, base, budget, made.reason);
  }
  const { checkpoint } = made;
  const newBase: Base = { covered, summary: checkpoint.summary || null, checkpoint };
  return {
    action: 'compacted',
    base: newBase,
    omitted: covered,
    view: buildView(a, newBase.summary, covered),
    write: { checkpoint, lockToken, version },
  };
}

/** Forward the base's view: the client's own bytes when no stored summary is involved. */
export function unchanged(a: Analysis, base: Base): Decision {
  if (!base.checkpoint) return { action: 'none', base, omitted: 0, view: null };
  return { action: 'reused', base, omitted: base.covered, view: buildView(a, base.summary, base.covered) };
}
