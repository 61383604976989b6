import type { ConversationRecord } from '../store/store.js';
import { runSliced } from '../slicing/slicer.js';
import type { Analysis } from './analyze.js';
import { costPlanning } from './cost-plan.js';
import { type Decision, forwarded, roundLines } from './decide.js';
import { roundSteps } from './plan-round.js';
import type { StepContext } from './step-context.js';
import { calibrates } from './token-service.js';

// A request that wrote its conversation's record (a clearing checkpoint stored, a summary
// confirmed) leaves no decision behind: what it forwarded was made before the checkpoint was
// stored, so its conversation's next request was planned first, the whole history analysed and
// decided again, on the record that write left. Once the write is done and the reply is out, the
// request's own items are decided here against that record, by the very round decide.ts plans
// first (plan-round.ts). A forward step notes its decision as decide.ts does, and the next request
// may then go upstream on it (reuse-first.ts) with the proofs any noted decision needs.

/** Whether a request's decision is noted after its write: what takes a decision over refuses these (decide.ts takenOver, reuse-first.ts). */
export function notesAfterWrite(ctx: StepContext): boolean {
  return !ctx.audit && !calibrates(ctx.model);
}

/** The forward decision over `a` against `record`, noted on its memo; undefined when the round would do anything else. Only for a request notesAfterWrite allows. */
export async function decideAfterWrite<T>(ctx: StepContext, a: Analysis<T>, record: ConversationRecord, lines: { view: number; own: number }): Promise<Decision<T> | undefined> {
  const later = costPlanning(ctx.deps.config.models, ctx.model, a, lines.view, false);
  const { step } = await runSliced(roundSteps({ a, record, ...roundLines(ctx, a, lines, record, later), lastRound: false }), ctx.pause);
  return step.kind === 'forward' ? forwarded(ctx, a, step) : undefined;
}
