import { randomBytes } from 'node:crypto';
import { viewTokensSteps } from '../compaction/layout.js';
import { type Cut, planDegradeSteps, planInterimSteps } from '../compaction/plan.js';
import type { ViewShape } from '../recall/left-out.js';
import { runSliced } from '../slicing/slicer.js';
import { landedOnBranch } from '../store/checkpoints.js';
import type { Checkpoint, ConversationRecord } from '../store/store.js';
import { type Analysis, buildView } from './analyze.js';
import { type Base, baseView, type CandidateCosts, candidatesSteps, chooseBase, matchingCheckpoints, noSummaryBase } from './choose-view.js';
import { noteOf, takeOver } from './decision-memo.js';
import { type RoundInput, type RoundStep, roundSteps } from './plan-round.js';
import { type CostPlanning, costPlanning, isFirstCut } from './cost-plan.js';
import type { HeldClaim } from './lease.js';
import { planRules } from './plan-rules.js';
import { claimCompaction, waitForHolders } from './single-flight.js';
import { checkpointForCut, describeCheckpoint, prefixOfCut, type Strategy } from './span-checkpoint.js';
import type { StepContext } from './step-context.js';
import { calibrates } from './token-service.js';

// What one request's view is (docs/design.md "One request": load record → choose the view → plan: fits /
// reuse / compact / degrade). A new summary is shared (rule 9): the request that makes it claims
// its prefix in the conversation's lock table, writes it as a provisional checkpoint as soon as it
// is validated and lets go of the claim, so requests waiting for it use it at once, however long
// the compacting request's own reply takes; the turn's outcome then confirms or discards it.

export type Action = 'none' | 'reused' | 'compacted' | 'degraded';

export interface Decision<T> {
  action: Action;
  /** The base the view is built on (for a compaction, the new checkpoint's). */
  base: Base;
  /** What goes upstream, or null for the client's own bytes. */
  view: T[] | null;
  /** Tool results shown as stubs, when not those of `base` (a degraded view clears its own). */
  stubs?: number;
  /** The view's own shape, when not that of `base` (a degraded view drops and clears its own). */
  shape?: ViewShape;
  /** A compaction by clearing alone: its checkpoint adds no summary (audit mode's `cleared`). */
  clearingOnly?: boolean;
  /** Tokens of the view (items and reply priming; no tool definitions). */
  viewTokens: number;
  /** The most compacted stored checkpoint that applies, when it is ahead of `base` (prepared, not yet needed). */
  furthest?: Base;
  /** A checkpoint to store once the upstream's reply came back 2xx (made without a summarizer call). */
  write?: Checkpoint;
  /** Provisional checkpoints the view relies on: confirmed by a 2xx, the own one discarded otherwise. */
  confirm: Checkpoint[];
  /** The provisional checkpoint this request wrote, for it to discard if its turn fails. */
  ownPending?: string;
  /**
   * The compaction claim, still held when the provisional checkpoint could not be written: the
   * checkpoint is then stored after the 2xx, and requests of the branch wait for it until then.
   */
  claim?: HeldClaim;
  reason?: string;
}

// A provisional checkpoint stays usable this long unless confirmed; a turn that outlives it (a very
// long reply) stores it again when it confirms it.
const PENDING_MS = 10 * 60_000;
// Rereads of the record after a compaction of this branch landed or was waited for, before
// degrading: each means progress on the branch (other branches' claims and writes do not count).
const MAX_ROUNDS = 8;

/** Forward a candidate's view: the client's own bytes when no stored checkpoint is involved. */
export function unchanged<T>(a: Analysis<T>, { base, tokens }: CandidateCosts): Decision<T> {
  const confirm = base.checkpoint?.pendingUntil === undefined ? [] : [base.checkpoint];
  if (!base.checkpoint) return { action: 'none', base, view: null, viewTokens: tokens, confirm };
  return { action: 'reused', base, view: buildView(a, base.summary, base), viewTokens: tokens, confirm };
}

function fromCut(cut: Cut, checkpoint: Checkpoint, summary: string | null): Base {
  return { covered: cut.covered, kept: cut.kept, cleared: new Set(cut.cleared), summary, checkpoint };
}

async function compacted<T>(ctx: StepContext, a: Analysis<T>, cut: Cut, checkpoint: Checkpoint, extra: Partial<Decision<T>> = {}): Promise<Decision<T>> {
  const next = fromCut(cut, checkpoint, checkpoint.summary || a.clientSummary);
  const tokens = await runSliced(viewTokensSteps(a.layout, baseView(a, next)), ctx.pause);
  return { action: 'compacted', base: next, view: buildView(a, next.summary, next), viewTokens: tokens, confirm: [], ...extra };
}

/** A view made by clearing alone (rule 11): no summarizer call; its checkpoint is stored after a 2xx. */
function cleared<T>(ctx: StepContext, a: Analysis<T>, cut: Cut, from: Base, noStore: boolean): Promise<Decision<T>> {
  const checkpoint = describeCheckpoint(a, cut, from.checkpoint?.summary ?? '', from.checkpoint?.model ?? 'clearing');
  return compacted(ctx, a, cut, checkpoint, noStore ? { clearingOnly: true } : { write: checkpoint, clearingOnly: true });
}

async function degrade<T>(ctx: StepContext, a: Analysis<T>, base: Base, budget: number, reason: string): Promise<Decision<T>> {
  const cut = await runSliced(planDegradeSteps(a.layout, baseView(a, base), budget, planRules(ctx.model.compaction)), ctx.pause);
  ctx.deps.logger.warn({ conversation: ctx.conversation, reason }, 'compaction degraded: dropping oldest items for this request');
  const view = { covered: cut.covered, kept: cut.kept, cleared: new Set(cut.cleared) };
  const confirm = base.checkpoint?.pendingUntil === undefined ? [] : [base.checkpoint];
  return { action: 'degraded', base, view: buildView(a, base.summary, view), viewTokens: cut.tokens, stubs: cut.cleared.length, shape: view, confirm, reason };
}

/**
 * `prefetched`: the record, when the route read it already. `forwardedFirst`: the request went
 * upstream as sent, proven below the trigger (forward-first.ts): its view is the client's own, and
 * the record tells only what is prepared ahead of it. `lines.own`: the budget of the client's own
 * view, which leaves nothing out (no recap_recall, no room kept for its answer); `budget` is that of
 * every other view; `lines.prepare`: the budget the prepare line is a share of.
 */
export async function decide<T>(
  ctx: StepContext,
  a: Analysis<T>,
  budget: number,
  prefetched?: Promise<ConversationRecord | null | 'unavailable'>,
  forwardedFirst = false,
  lines: { own: number; prepare: number } = { own: budget, prepare: budget },
): Promise<Decision<T>> {
  // The lowest lines a cut could be planned by, until the record tells whether it would be the first.
  const cost = costPlanning(ctx.deps.config.models, ctx.model, a, budget, false);
  const compaction = cost?.compaction ?? ctx.model.compaction;
  // Below both lines no stored summary can be needed (the least compacted view that fits is the
  // client's own) and nothing is prepared, so the store is not even asked.
  const raw = await runSliced(viewTokensSteps(a.layout, baseView(a, noSummaryBase(a))), ctx.pause);
  if (raw <= compaction.trigger_ratio * lines.own && raw <= compaction.prepare_ratio * lines.prepare) return unchanged(a, { base: noSummaryBase(a), tokens: raw });
  // The chain links identify the checkpoints (rule 6); on a big request they take a while to hash.
  await runSliced(a.linksSteps(), ctx.pause);
  const record = ctx.keepsRecords ? await (prefetched ?? ctx.deps.records.load(ctx.key)) : null;
  const stored = record === 'unavailable' ? null : record;
  if (forwardedFirst) return asSent(ctx, a, stored);
  return settle(ctx, a, { view: budget, own: lines.own, raw }, stored, record === 'unavailable' || !ctx.keepsRecords, cost);
}

/** What a request's rounds are planned by (plan-round.ts) against `record`; `later`: costPlanning's lines for a later cut. */
export function roundLines<T>(
  ctx: StepContext,
  a: Analysis<T>,
  lines: { view: number; own: number },
  record: ConversationRecord | null,
  later: CostPlanning | null,
): Omit<RoundInput<T>, 'a' | 'record' | 'lastRound'> & { ownTrigger: number } {
  // With prices, a conversation's first cut has lines of its own (cost-plan.ts).
  const cost = later && isFirstCut(record, a) ? costPlanning(ctx.deps.config.models, ctx.model, a, lines.view, true) : later;
  const compaction = cost?.compaction ?? ctx.model.compaction;
  return {
    budget: lines.view,
    trigger: compaction.trigger_ratio * lines.view,
    ownTrigger: compaction.trigger_ratio * lines.own,
    rules: planRules(compaction),
    cost,
    summaryMaxTokens: compaction.summary_max_tokens,
  };
}

/** The client's own view, with the most compacted checkpoint stored for it (for background preparation). */
async function asSent<T>(ctx: StepContext, a: Analysis<T>, record: ConversationRecord | null): Promise<Decision<T>> {
  const all = await runSliced(candidatesSteps(a, record), ctx.pause);
  return withFurthest(unchanged(a, all[0]!), all);
}

/** `d`, knowing the most compacted of the candidates when it is ahead of `d`'s base. */
export function withFurthest<T>(d: Decision<T>, all: readonly CandidateCosts[]): Decision<T> {
  const furthest = all[all.length - 1]!.base;
  return furthest.covered > d.base.covered || furthest.cleared.size > d.base.cleared.size ? { ...d, furthest } : d;
}

/** A round's forward step as the request's decision, noted for the next request to take over (decision-memo.ts). */
export function forwarded<T>(ctx: StepContext, a: Analysis<T>, step: Extract<RoundStep, { kind: 'forward' }>): Decision<T> {
  const d = unchanged(a, step.choice);
  a.memo.decision = noteOf(a, ctx.model, a.recall, step.all, step.choice, d.view);
  return step.furthest ? withFurthest(d, step.all) : d;
}

/**
 * The previous request's forward decision taken over (decision-memo.ts), or undefined. Not in audit
 * mode, nor with a calibrated model (its counts may have moved since), nor without a record.
 */
function takenOver<T>(ctx: StepContext, a: Analysis<T>, record: ConversationRecord | null, raw: number, trigger: number, ownTrigger: number): Decision<T> | undefined {
  const note = a.prior?.decision;
  if (!note || !record || ctx.audit || calibrates(ctx.model)) return undefined;
  const taken = takeOver({ a, note, model: ctx.model, recall: a.recall, matching: matchingCheckpoints(a, record, Date.now(), a.links), raw, trigger, ownTrigger });
  if (!taken) return undefined;
  const { all, choice, view } = taken;
  a.memo.decision = noteOf(a, ctx.model, a.recall, all, choice, view);
  return withFurthest({ action: 'reused', base: choice.base, view, viewTokens: choice.tokens, confirm: [] }, all);
}

async function settle<T>(
  ctx: StepContext,
  a: Analysis<T>,
  budgets: { view: number; own: number; raw: number },
  first: ConversationRecord | null,
  noStore: boolean,
  later: CostPlanning | null,
): Promise<Decision<T>> {
  const lines = roundLines(ctx, a, budgets, first, later);
  const { budget, trigger, ownTrigger, rules, cost } = lines;
  const waitUntil = Date.now() + ctx.deps.config.server.compaction_wait_ms;
  if (!noStore) {
    const taken = takenOver(ctx, a, first, budgets.raw, trigger, ownTrigger);
    if (taken) return taken;
  }
  let record = first;
  for (let round = 0; ; round++) {
    // The pure planner says what this round does (plan-round.ts); the rest of the loop carries it out.
    const planned = await runSliced(roundSteps({ a, record, ...lines, lastRound: round >= MAX_ROUNDS }), ctx.pause);
    if (planned.figures && ctx.weighed) ctx.weighed.costDecision = planned.figures;
    const { step } = planned;
    if (step.kind === 'forward') return forwarded(ctx, a, step);
    if (step.kind === 'degrade') return degrade(ctx, a, step.from, budget, step.reason);
    if (step.kind === 'clear') return cleared(ctx, a, step.cut, step.from, noStore);
    const { cut: plan, from, all } = step;
    // Audit mode spends nothing, so nothing needs paying for.
    if (!ctx.audit && ctx.model.compaction.strategy === 'summarize' && !(await ctx.deps.proofs.mayPay(ctx.identity.tenant, ctx.model))) {
      return degrade(ctx, a, from, budget, 'credential_not_yet_accepted');
    }
    const strategy = await strategyFor(ctx);
    if (strategy !== 'summarize' || noStore) return summarizeUnshared(ctx, a, from, plan, strategy, budget, noStore);
    // Clearing costs nothing: while it still makes the view fit, the summary is left to background
    // preparation (rule 10) or to the compaction already running, and this request waits for none.
    // With prices, not: clearing now and summarizing soon after would change the prompt prefix twice.
    const interim = cost ? null : await runSliced(planInterimSteps(a.layout, baseView(a, from), budget, rules), ctx.pause);
    if (interim && ctx.deps.config.background.enabled) return cleared(ctx, a, interim, from, false);

    const prefix = prefixOfCut(plan);
    const claim = { id: a.links[prefix - 1]!, prefix, link: a.links[prefix - 1]! };
    // Measured against what the base's summary covers, not the prefix it clears: a compaction claimed
    // inside a clearing checkpoint's prefix still summarizes further than that checkpoint's summary.
    const claimed = await claimCompaction(ctx.deps.records, ctx.key, claim, a.links, from.covered);
    if (claimed.kind === 'unavailable') return summarizeUnshared(ctx, a, from, plan, strategy, budget, true);
    if (claimed.kind === 'wait') {
      if (interim) return cleared(ctx, a, interim, from, false);
      const done = await waitForHolders(ctx.deps.records, ctx.key, claimed.holders, waitUntil, ctx.signal);
      record = await reload(ctx, record);
      if (done) continue;
      const after = chooseBase(await runSliced(candidatesSteps(a, record), ctx.pause), trigger, ownTrigger);
      return after.fits ? withFurthest(unchanged(a, after.choice), all) : degrade(ctx, a, after.choice.base, budget, 'compaction_wait_timeout');
    }
    // The record was read before the claim: a compaction of this branch that landed in between must
    // be used, not made again. What other branches wrote meanwhile is no reason to start over.
    const fresh = await ctx.deps.records.load(ctx.key);
    const held = claimed.claim;
    if (fresh !== 'unavailable' && landedOnBranch(record, fresh, a.links)) {
      await held.release();
      record = fresh;
      continue;
    }
    let decision: Decision<T> | undefined;
    try {
      decision = await summarizeShared(ctx, a, from, plan, budget, held);
      return decision;
    } finally {
      if (decision?.claim !== held) await held.release();
    }
  }
}

async function reload(ctx: StepContext, previous: ConversationRecord | null): Promise<ConversationRecord | null> {
  const record = await ctx.deps.records.load(ctx.key);
  return record === 'unavailable' ? previous : record;
}

async function strategyFor(ctx: StepContext): Promise<Strategy> {
  const strategy = ctx.model.compaction.strategy as Strategy;
  if (strategy === 'summarize' && !ctx.audit && !(await ctx.deps.tenantBudget.allows(ctx.identity.tenant))) {
    ctx.deps.metrics.tenantBudgetExceeded.inc();
    return 'window';
  }
  return strategy;
}

/** A summary nobody waits for (template, window, or no store to share it through): stored after a 2xx. */
async function summarizeUnshared<T>(ctx: StepContext, a: Analysis<T>, from: Base, cut: Cut, strategy: Strategy, budget: number, noStore: boolean): Promise<Decision<T>> {
  const made = await checkpointForCut(ctx, a, from, cut, strategy, 'inline', ctx.signal);
  if (!made.ok) return degrade(ctx, a, from, budget, made.reason);
  return compacted(ctx, a, cut, made.checkpoint, noStore ? {} : { write: made.checkpoint });
}

/** With the claim held: summarize, and make the summary visible at once as a provisional checkpoint. */
async function summarizeShared<T>(ctx: StepContext, a: Analysis<T>, from: Base, cut: Cut, budget: number, claim: HeldClaim): Promise<Decision<T>> {
  const made = await checkpointForCut(ctx, a, from, cut, 'summarize', 'inline', ctx.signal);
  if (!made.ok) return degrade(ctx, a, from, budget, made.reason);
  const pendingToken = randomBytes(12).toString('base64url');
  const provisional: Checkpoint = { ...made.checkpoint, pendingUntil: Date.now() + PENDING_MS, pendingToken };
  if (!(await ctx.deps.records.add(ctx.key, provisional, a.links))) return compacted(ctx, a, cut, made.checkpoint, { write: made.checkpoint, claim });
  return compacted(ctx, a, cut, provisional, { confirm: [provisional], ownPending: pendingToken });
}
