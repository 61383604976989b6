import type { CompactionFigures } from '../compaction/cost.js';
import { type Cut, type PlanRules, planCompactionSteps } from '../compaction/plan.js';
import type { Steps } from '../slicing/slicer.js';
import type { ConversationRecord } from '../store/store.js';
import type { Analysis } from './analyze.js';
import { type Base, baseView, type CandidateCosts, candidatesSteps, chooseBase } from './choose-view.js';
import { type CostPlanning, weighCut } from './cost-plan.js';

// The pure half of deciding a request's view: from the request taken apart, the record as last
// read and the budget, what this round does. No I/O and no clock: the loop in decide.ts carries the
// step out (the tenant's allowance, the compaction claim, waiting for another request's summary,
// the summarizer, the store) and plans another round when the record it reads has changed.

export type RoundStep =
  /** Forward `choice`'s view (`furthest`: noting the most compacted candidate, for background preparation). */
  | { kind: 'forward'; choice: CandidateCosts; all: CandidateCosts[]; furthest: boolean }
  /** Too many rounds: drop the oldest rounds of `from` for this request. */
  | { kind: 'degrade'; from: Base; reason: 'compaction_busy' }
  /** Clearing alone makes the view fit (rule 11). */
  | { kind: 'clear'; cut: Cut; from: Base }
  /** A summary of `cut` on top of `from` is needed. */
  | { kind: 'summarize'; cut: Cut; from: Base; all: CandidateCosts[] };

export interface RoundInput<T> {
  a: Analysis<T>;
  record: ConversationRecord | null;
  /** The items' budget (tools taken out). */
  budget: number;
  /** The trigger line, in tokens; `ownTrigger`: the client's own view's (choose-view.ts's chooseBase). */
  trigger: number;
  ownTrigger?: number;
  rules: PlanRules;
  /** With prices: a cut is made only when it pays for itself (rule 14). */
  cost: CostPlanning | null;
  summaryMaxTokens: number;
  /** The rounds are used up: a view that does not fit is degraded. */
  lastRound: boolean;
}

/** One round's step, and the cost model's figures when it weighed a cut. */
export function* roundSteps<T>(r: RoundInput<T>): Steps<{ step: RoundStep; figures?: CompactionFigures }> {
  const all = yield* candidatesSteps(r.a, r.record);
  const { choice, fits } = chooseBase(all, r.trigger, r.ownTrigger);
  if (fits) return { step: { kind: 'forward', choice, all, furthest: true } };
  const from = choice.base;
  if (r.lastRound) return { step: { kind: 'degrade', from, reason: 'compaction_busy' } };
  const plan = yield* planCompactionSteps(r.a.layout, baseView(r.a, from), r.budget, r.rules);
  if (plan.kind === 'fits' || plan.kind === 'irreducible') return { step: { kind: 'forward', choice, all, furthest: false } };
  const figures = r.cost ? weighCut(r.cost, r.a, from, choice.tokens, plan, plan.kind === 'summarize', r.summaryMaxTokens) : undefined;
  const weighed = figures ? { figures } : {};
  if (figures?.verdict === 'does_not_pay') return { step: { kind: 'forward', choice, all, furthest: true }, ...weighed };
  if (plan.kind === 'clear') return { step: { kind: 'clear', cut: plan, from }, ...weighed };
  return { step: { kind: 'summarize', cut: plan, from, all }, ...weighed };
}
