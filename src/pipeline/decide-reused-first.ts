import { viewTokensSteps } from '../compaction/layout.js';
import { runSliced } from '../slicing/slicer.js';
import type { Analysis } from './analyze.js';
import { baseView, checkpointBase, matchingCheckpoints, noSummaryBase } from './choose-view.js';
import { costPlanning } from './cost-plan.js';
import { type Decision, withFurthest } from './decide.js';
import { noteOf, takeOver } from './decision-memo.js';
import type { ReusedFirst } from './reuse-first.js';
import type { StepContext } from './step-context.js';

// The decision of a request that went upstream on its conversation's last one (reuse-first.ts),
// worked out as decide.ts takes a decision over, from the checkpoints that decision was made
// with; whether they are still what is stored is for the record's version, read after the reply
// (reuse-first-note.ts), to tell, which is why the reply waits for no store. Nothing here calls a
// summarizer or writes: the request is on its way already.

/** The decision `first` was forwarded with, and whether its note stands for the next request (pending that read). */
export async function decideReusedFirst<T>(ctx: StepContext, a: Analysis<T>, budget: number, own: number, first: ReusedFirst): Promise<{ decision: Decision<T>; stands: boolean }> {
  const { note } = first.note;
  // A cut is stored (the view reuses one), so the cost model's lines are those of a later cut.
  const compaction = costPlanning(ctx.deps.config.models, ctx.model, a, budget, false)?.compaction ?? ctx.model.compaction;
  const raw = await runSliced(viewTokensSteps(a.layout, baseView(a, noSummaryBase(a))), ctx.pause);
  await runSliced(a.linksSteps(), ctx.pause);
  const now = Date.now();
  const matching = matchingCheckpoints(a, { version: 0, checkpoints: [...note.checkpoints], updatedAt: 0 }, now, a.links);
  const trigger = compaction.trigger_ratio * budget;
  const taken = takeOver({ a, note, model: ctx.model, recall: a.recall, matching, raw, trigger, ownTrigger: compaction.trigger_ratio * own });
  if (taken && sameItems(taken.view, first.view)) {
    a.memo.decision = noteOf(a, ctx.model, a.recall, taken.all, taken.choice, taken.view);
    return { decision: withFurthest({ action: 'reused', base: taken.choice.base, view: taken.view, viewTokens: taken.choice.tokens, confirm: [] }, taken.all), stands: true };
  }
  // reuse-first.ts proves what takeOver checks; should they ever disagree, the plan still describes
  // what went upstream, and the conversation's next request is planned first.
  ctx.deps.logger.warn({ conversation: ctx.conversation }, 'a request forwarded on its last decision was planned otherwise');
  const base = checkpointBase(a, note.checkpoints[note.chosen - 1]!);
  const viewTokens = await runSliced(viewTokensSteps(a.layout, baseView(a, base)), ctx.pause);
  return { decision: { action: 'reused', base, view: first.view as T[], viewTokens, confirm: [] }, stands: false };
}

function sameItems(x: readonly unknown[], y: readonly unknown[]): boolean {
  return x.length === y.length && x.every((item, i) => item === y[i]);
}
