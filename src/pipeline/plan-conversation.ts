import { summaryCodec } from '../compaction/summary-message.js';
import type { ModelConfig } from '../config/config.js';
import type { EventTarget } from '../observability/request-log.js';
import type { ConversationRecord } from '../store/store.js';
import { leavesOut, type RecallSession, recallSession } from '../recall/session.js';
import { runSliced } from '../slicing/slicer.js';
import type { Budget } from '../tokens/budget.js';
import type { CountedItems, RecallOffer } from '../wire/format.js';
import { ANALYSIS_MEMOS } from './analysis-memo.js';
import { type Analysis, analyzeSteps } from './analyze.js';
import { type Decision, decide } from './decide.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { decideAfterWrite, notesAfterWrite } from './decide-after-write.js';
import { decideReusedFirst } from './decide-reused-first.js';
import { notingReuseFirst } from './reuse-first-note.js';
import { createRoutePlan, type PathDeps, type RoutePlan } from './route-plan.js';
import type { StepContext } from './step-context.js';
import { type CompactionRequest, planUntouched, type PrepareInput, recordKey, stepContext, viewBudgets } from './prepare-input.js';

// Choose the view and plan (docs/design.md "One request": … → choose the view → plan: fits /
// reuse / compact / degrade) for a request whose records are kept or not, counted and with its
// record read or on its way: what prepare.ts hands the engine.

export async function planCompaction<T>(deps: PathDeps, input: PrepareInput & { model: ModelConfig }, request: CompactionRequest<T>): Promise<RoutePlan<T>> {
  const plan = await planConversation(deps, input, request);
  const { identity } = request;
  if (!identity.keepsRecords) return plan;
  // The conversation whose records are kept: its event goes to its listing (events/recorder.ts).
  const vouched = input.caller.kind !== 'credential';
  const target: EventTarget = { key: { tenant: identity.tenant, conversation: identity.conversation }, id: identity.id ?? null, route: request.wire.route, vouched };
  return { ...plan, outcome: { ...plan.outcome, target } };
}

async function planConversation<T>(deps: PathDeps, input: PrepareInput & { model: ModelConfig }, request: CompactionRequest<T>): Promise<RoutePlan<T>> {
  const { model } = input;
  const { identity, counted, budget } = request;
  const budgets = viewBudgets(budget, model, request.recall);
  // The request as its look's room is kept for (prepare-room.ts).
  const asCounted = { items: request.items as readonly object[], perItem: counted.perItem, fixedTokens: counted.fixedTokens };
  // Forwarded first, it is below both lines by proof: nothing to choose, store or prepare.
  if (input.forwardedFirst === 'below both lines') return planUntouched(deps, input, counted, budget, identity);
  // Forwarded first below the trigger, its view is the client's own: the headers need nothing more,
  // and what the record holds matters only to background preparation (rule 10), planned once the
  // reply is out.
  if (input.forwardedFirst === 'below the trigger') {
    const plan = planUntouched(deps, input, counted, budget, identity);
    return {
      ...plan,
      async afterSuccess(status, observer) {
        const priced = await plan.afterSuccess(status, observer);
        if (status < 200 || status >= 300) return priced;
        // What it adds to its conversation's last look may leave its view provably below the line.
        if (deps.background.fitsRoom(recordKey(deps, model, identity), asCounted, budgets.prepare)) return priced;
        const { ctx, a, decision } = await analyzeAndDecide(deps, input, request);
        deps.background.consider(ctx, a, decision, budgets.prepare, input.bytes, asCounted);
        return priced;
      },
    };
  }
  const { ctx, a, decision, stands } = await analyzeAndDecide(deps, input, request);
  const recall = request.recall && recallFor(a, decision, model, counted, budget, request.recall);
  const plan = createRoutePlan({
    deps,
    tokens: counted,
    model,
    budget,
    identity,
    compaction: { ctx, a, decision, budget: budgets.prepare, bytes: input.bytes, counted: asCounted },
    recall,
  });
  const lines = { view: budgets.view, own: budgets.own };
  // What the request writes after its 2xx changes what its conversation's next request is decided on.
  const writes = !input.reusedFirst && ctx.keepsRecords && (decision.write !== undefined || decision.confirm.length > 0) && notesAfterWrite(ctx);
  return notingReuseFirst(deps, plan, {
    a,
    key: ctx.key,
    read: request.record,
    outside: request.outside,
    lines,
    recall: recall !== undefined,
    ...(input.reusedFirst ? { first: { went: input.reusedFirst, stands: stands === true } } : {}),
    ...(writes
      ? {
          async afterWrite(record: ConversationRecord) {
            const again = await decideAfterWrite(ctx, a, record, lines);
            return again && { recall: request.recall !== undefined && offersRecall(again, model) };
          },
        }
      : {}),
  });
}

/**
 * The request taken apart (analyze.ts) and its view decided (decide.ts); for one that went upstream
 * on its last decision, whether its note may let the next go first (pending the version read after its reply).
 */
async function analyzeAndDecide<T>(
  deps: PipelineDeps,
  input: PrepareInput & { model: ModelConfig },
  request: CompactionRequest<T>,
): Promise<{ ctx: StepContext; a: Analysis<T>; decision: Decision<T>; stands?: boolean }> {
  const { model } = input;
  const { identity, counted, budget } = request;
  const ctx = { ...stepContext(deps, input, model, counted.counter, identity), sharedPrefix: request.sharedPrefix };
  const a = await runSliced(
    analyzeSteps({
      items: request.items,
      tokens: counted.perItem,
      hashes: counted.hashes,
      primingTokens: counted.fixedTokens,
      countItem: counted.countItem,
      wire: request.wire,
      codec: summaryCodec(deps.secret, identity.tenant, { recall: request.recall !== undefined }),
      recall: request.recall !== undefined,
      ...(ctx.audit ? { projectedSummaryTokens: model.compaction.summary_max_tokens } : {}),
      memo: { memos: ANALYSIS_MEMOS, key: `${request.wire.route}\n${ctx.key.tenant}\n${ctx.key.conversation}`, bytes: input.bytes },
    }),
    ctx.pause,
  );
  const budgets = viewBudgets(budget, model, request.recall);
  if (input.reusedFirst) {
    const { decision, stands } = await decideReusedFirst(ctx, a, budgets.view, budgets.own, input.reusedFirst);
    return { ctx, a, decision, stands };
  }
  const decision = await decide(ctx, a, budgets.view, request.record?.record, input.forwardedFirst !== undefined, budgets);
  return { ctx, a, decision };
}

/** Whether a decision's view goes with recap_recall: one that leaves something out (rule 13), never in audit mode. */
function offersRecall<T>(decision: Decision<T>, model: ModelConfig): boolean {
  return decision.view !== null && model.compaction.mode !== 'audit' && leavesOut(decision.shape ?? decision.base);
}

/** The recall session of a view that leaves something out (rule 13), else undefined: the tool is injected only then. */
function recallFor<T>(a: Analysis<T>, decision: Decision<T>, model: ModelConfig, counted: CountedItems<T>, budget: Budget, offer: RecallOffer): RecallSession<T> | undefined {
  if (!offersRecall(decision, model)) return undefined;
  const shape = decision.shape ?? decision.base;
  return recallSession({
    modelLabel: model.match,
    recall: model.recall,
    items: { rest: a.rest, offset: a.seg.pinnedCount, describe: a.wire.describe, asChat: a.wire.asChat },
    shape,
    room: budget.prompt - (decision.viewTokens + counted.toolsTokens + offer.toolTokens),
    toolTokens: offer.toolTokens,
    rawToolTokens: offer.rawToolTokens,
    countItem: counted.countItem,
    countText: counted.counter.countText,
  });
}
