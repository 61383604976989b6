import type { Caller } from '../auth/caller.js';
import type { ModelConfig } from '../config/config.js';
import type { Identity, NamedConversation } from '../conversation/identify.js';
import { createSlicer, SLICE_MS } from '../slicing/slicer.js';
import type { ConversationKey } from '../store/store.js';
import type { Budget } from '../tokens/budget.js';
import type { TokenCounter } from '../tokens/counter.js';
import type { CountedItems, RecallOffer, WireItems } from '../wire/format.js';
import { auditKey } from './audit.js';
import type { RecordRead } from './early-record.js';
import type { ForwardFirst } from './forward-first.js';
import type { PipelineDeps } from './pipeline-deps.js';
import type { ReusedFirst } from './reuse-first.js';
import type { SharedPrefixSource } from './shared-prefix.js';
import { createRoutePlan, type PathDeps, type PlanTokens, type RoutePlan } from './route-plan.js';
import { type StepContext, type SummarizerTally, summarizerRecorder } from './step-context.js';

// What the request path's planning steps share (prepare.ts, plan-conversation.ts): the request as
// prepare() hands it on, where its records are kept, the budgets its views are planned against,
// and the context a step of the engine runs in.

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
export function recordKey(deps: PipelineDeps, model: ModelConfig, identity: Identity): ConversationKey {
  const key = { tenant: identity.tenant, conversation: identity.conversation };
  return model.compaction.mode === 'audit' ? auditKey(key, deps.secret) : key;
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

export function stepContext(deps: PipelineDeps, input: PrepareInput, model: ModelConfig, counter: TokenCounter, identity: Identity): StepContext {
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
