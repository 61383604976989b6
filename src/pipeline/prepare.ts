import type { Caller } from '../auth/caller.js';
import { summaryCodec } from '../compaction/summary-message.js';
import type { ModelConfig } from '../config/config.js';
import { type Identity, identifyBy, type NamedConversation } from '../conversation/identify.js';
import type { EventTarget } from '../observability/request-log.js';
import { leavesOut, type RecallSession, recallSession } from '../recall/session.js';
import { createSlicer, runSliced, SLICE_MS } from '../slicing/slicer.js';
import type { ConversationKey } from '../store/store.js';
import type { Budget } from '../tokens/budget.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { CountedItems, ParsedRequest, RecallOffer, WireFormat, WireItems } from '../wire/format.js';
import { ANALYSIS_MEMOS } from './analysis-memo.js';
import { type Analysis, analyzeSteps } from './analyze.js';
import { auditKey } from './audit.js';
import { type Decision, decide } from './decide.js';
import { type Arrival, type RecordRead, readRecord } from './early-record.js';
import { canForwardFirst, type ForwardFirst } from './forward-first.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { decideReusedFirst } from './decide-reused-first.js';
import { outsideItems, type ReusedFirst } from './reuse-first.js';
import { notingReuseFirst } from './reuse-first-note.js';
import { type SharedPrefixSource, sharedPrefixSource } from './shared-prefix.js';
import { createRoutePlan, type PathDeps, type PlanTokens, type RoutePlan } from './route-plan.js';
import { type StepContext, type SummarizerTally, summarizerRecorder } from './step-context.js';

// The compaction part of a route's request path once its adapter has counted the request (docs/design.md
// "One request": … → load record → choose the view → plan: fits / reuse / compact / degrade), the
// same for every wire format. The handler forwards what this returns and calls the plan back as
// the response goes out.

export interface PrepareInput {
  /** Who asked: the door admitted it (auth/caller.ts). */
  caller: Caller;
  /** The conversation the client named in its header, if it did (read once, by the handler). */
  conversation?: NamedConversation | undefined;
  model: ModelConfig | undefined;
  signal: AbortSignal;
  /** The request went upstream before prepare(), as it provably goes as sent (forward-first.ts). */
  forwardedFirst?: ForwardFirst | undefined;
  /** Size of the client's body: what a background job planned from this request holds. */
  bytes: number;
  /** Of the client's headers, those its API reads the body by (shared-prefix.ts): a summarizer call on the conversation's prefix sends them too. */
  apiHeaders?: Readonly<Record<string, string>> | undefined;
  /** The request went upstream on its conversation's last decision (reuse-first.ts). */
  reusedFirst?: ReusedFirst | undefined;
}

/** A request recap forwards as it came: counted, with its budget when the model has one. */
export function planUntouched<T>(deps: PathDeps, input: PrepareInput, tokens: PlanTokens<T>, budget: Budget | undefined, identity?: Identity): RoutePlan<T> {
  return createRoutePlan({ deps, tokens, model: input.model, budget, identity });
}

/** Where the request's records are kept: a model in audit mode keeps its projections apart. */
function recordKey(deps: PipelineDeps, model: ModelConfig, identity: Identity): ConversationKey {
  const key = { tenant: identity.tenant, conversation: identity.conversation };
  return model.compaction.mode === 'audit' ? auditKey(key, deps.secret) : key;
}

/**
 * The record of a request that was not forwarded first, read while the route counts it: such a
 * request could not be shown to fit below the trigger, so it most likely needs its record, and
 * the store's round trip then overlaps the counting instead of following it. (One forwarded first
 * needs it, if at all, only once its reply is out.) The read started as the request arrived is
 * taken when it is of this very key (early-record.ts).
 */
export function prefetchRecord(deps: PipelineDeps, input: PrepareInput & { model: ModelConfig }, identity: Identity, early?: RecordRead): RecordRead | undefined {
  if (input.forwardedFirst || !identity.keepsRecords || input.model.compaction.strategy === 'off') return undefined;
  const key = recordKey(deps, input.model, identity);
  if (early && early.key.tenant === key.tenant && early.key.conversation === key.conversation) return early;
  // One that went upstream on its last decision reads its record once its reply is out (planConversation).
  if (input.reusedFirst) return undefined;
  return readRecord(deps.records, key);
}

/** What a route hands the engine of one request. */
export interface CompactionRequest<T> {
  items: readonly T[];
  wire: WireItems<T>;
  identity: Identity;
  counted: CountedItems<T>;
  budget: Budget;
  recall?: RecallOffer | undefined;
  /** The record, read already (prefetchRecord). */
  record?: RecordRead | undefined;
  /** The request's bytes outside its items (reuse-first.ts), a copy of them worked out when a decision is noted. */
  outside?: (() => readonly [Buffer, Buffer] | null) | undefined;
  /** The request as recap forwards it, when the model summarizes on its cached prefix. */
  sharedPrefix?: SharedPrefixSource | undefined;
}

/**
 * The budgets a request's views are planned against: a view that leaves something out carries
 * recap_recall (its definition is in `budget` already) and keeps `answer_room_tokens` free for one
 * recall answer; the client's own view leaves nothing out, so neither counts against it (a request
 * the client sent below the trigger is never compacted for recall's sake). Background preparation
 * plans the views it prepares, so its line is a share of `view` too.
 */
export function viewBudgets(budget: Budget, model: ModelConfig, recall: RecallOffer | undefined): { view: number; own: number; prepare: number } {
  if (!recall) return { view: budget.budget, own: budget.budget, prepare: budget.budget };
  const view = Math.max(0, budget.budget - model.recall.answer_room_tokens);
  return { view, own: budget.budget + recall.toolTokens, prepare: view };
}

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
  return notingReuseFirst(deps, plan, {
    a,
    key: ctx.key,
    read: request.record,
    outside: request.outside,
    lines: { view: budgets.view, own: budgets.own },
    recall: recall !== undefined,
    ...(input.reusedFirst ? { first: { went: input.reusedFirst, stands: stands === true } } : {}),
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

/** The bytes `outside` views, copied: a note keeps no client body alive. */
function copied(outside: readonly [Buffer, Buffer] | null): readonly [Buffer, Buffer] | null {
  return outside && [Buffer.from(outside[0]), Buffer.from(outside[1])];
}

/** The recall session of a view that leaves something out (rule 13), else undefined: the tool is injected only then. */
function recallFor<T>(a: Analysis<T>, decision: Decision<T>, model: ModelConfig, counted: CountedItems<T>, budget: Budget, offer: RecallOffer): RecallSession<T> | undefined {
  const shape = decision.shape ?? decision.base;
  if (decision.view === null || model.compaction.mode === 'audit' || !leavesOut(shape)) return undefined;
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

function stepContext(deps: PipelineDeps, input: PrepareInput, model: ModelConfig, counter: TokenCounter, identity: Identity): StepContext {
  const audit = model.compaction.mode === 'audit';
  const summarized: SummarizerTally = { calls: 0, tokens: 0, ms: 0 };
  return {
    deps,
    model,
    identity,
    key: recordKey(deps, model, identity),
    audit,
    counter,
    // A caller that keeps no records (anonymous) reads and writes none: the engine checks this one flag.
    keepsRecords: identity.keepsRecords,
    conversation: identity.conversation.slice(0, 16),
    summarized,
    weighed: {},
    signal: input.signal,
    pause: createSlicer(SLICE_MS),
    // A summarizer on the caller's upstream without a key of its own is called with the caller's credential.
    authorization: input.caller.kind === 'credential' ? input.caller.credential : undefined,
    recordSummarizer: summarizerRecorder(deps, model, identity.tenant, summarized),
  };
}

/**
 * The request path from a request read by its format to the plan its handler carries out (docs/design.md
 * "One request": identify → count → load record → choose the view → plan: fits / reuse / compact /
 * degrade), the same for every format: the format counts and names what opens the conversation,
 * the engine plans over its neutral items.
 */
export async function prepareRequest<T, P extends ParsedRequest>(
  deps: PathDeps,
  format: WireFormat<T, P>,
  input: PrepareInput & { parsed: P; arrival?: Arrival | undefined },
): Promise<RoutePlan<T>> {
  const { parsed, model, arrival } = input;
  const items = model && model.compaction.strategy !== 'off' ? format.compactable(parsed) : null;
  if (!model || !items) {
    arrival?.settle(undefined);
    const counted = await format.count(deps.tokens, parsed, model);
    return planUntouched(deps, input, counted, model ? deps.tokens.budgetFor(model, parsed.body, counted.toolsTokens) : undefined);
  }
  // Worked out from the header as it arrived, when it named the conversation.
  const identity =
    input.reusedFirst?.identity ??
    arrival?.identity ??
    identifyBy(input.caller, input.conversation, () => format.opening(parsed, items), { secret: deps.secret, route: format.items.route });
  const read = prefetchRecord(deps, { ...input, model }, identity, arrival?.take());
  // Calibration is the tenant's own (tokens/calibration.ts): no other tenant's traffic moves its counts.
  const counters = deps.tokens.forTenant(identity.tenant);
  const counted = await format.count(counters, parsed, model);
  // What the conversation's next request reads as it arrives: this one's record, unless this one,
  // counted exactly, would have gone upstream first had its history been known, as the next then
  // most likely does (forward-first.ts), or this one went on its last decision, as the next then
  // most likely does too, reading the record's version alone after its reply (reuse-first-note.ts).
  const exact = () => ({ messages: counted.rawOut(null) - counted.rawTools, definitions: counted.rawTools });
  const next = read && !input.reusedFirst && canForwardFirst(parsed.body, exact, model, input.conversation) === null;
  arrival?.settle(next ? read.key : undefined);
  const recall = format.recall ? format.recallOffer(model, parsed, counted, counters.scaleFor(model)) : undefined;
  // The injected tool is planned for as one of the request's tools (rule 3).
  const budget = deps.tokens.budgetFor(model, parsed.body, counted.toolsTokens + (recall?.toolTokens ?? 0));
  const sharedPrefix = sharedPrefixSource(format, parsed, model, recall, input.apiHeaders ?? {});
  return planCompaction(
    deps,
    { ...input, model },
    {
      items,
      wire: format.items,
      identity,
      counted,
      budget,
      recall,
      record: read,
      sharedPrefix,
      outside: () => input.reusedFirst?.note.outside ?? copied(outsideItems(parsed, format.itemsKey)),
    },
  );
}
