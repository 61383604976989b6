import type { IncomingHttpHeaders } from 'node:http';
import { newestTurnTokens } from '../compaction/cost.js';
import type { ModelConfig } from '../config/config.js';
import type { Identity } from '../conversation/identify.js';
import { viewMap } from '../events/view-map.js';
import { type OutcomePart, recapHeaders } from '../observability/outcome.js';
import type { RecallSession } from '../recall/session.js';
import type { Budget } from '../tokens/budget.js';
import type { Analysis } from './analyze.js';
import { auditActionOf } from './audit.js';
import type { BackgroundCompactor } from './background.js';
import type { Decision } from './decide.js';
import type { CountedRequest } from './prepare-room.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { priceRequest } from './price-request.js';
import { type StepContext, summarizerPart } from './step-context.js';
import { calibrates } from './token-service.js';
import { observeUsage, type ResponseObserver } from './usage-observer.js';

// The decision as a route's handler uses it: headers for the client, then callbacks as the
// response goes out. Checkpoints are stored, and provisional ones confirmed, only once the
// upstream's reply reached the client whole with a 2xx: a turn that the client did not get
// (upstream broke or went silent, client left, an error status: rule 8) keeps nothing, and takes
// back the provisional checkpoint it made unless another turn confirmed it meanwhile.

export interface RoutePlan<T> {
  /** The items to send upstream, or null to forward the client's bytes untouched. */
  view: T[] | null;
  /** Set when the view goes with recap_recall injected: what answering its calls needs (rule 13). */
  recall?: RecallSession<T> | undefined;
  /** The plan's part of the request's outcome: what it decided, counted and (inline) summarized. */
  outcome: OutcomePart;
  /** The x-recap-* headers, from `outcome`. */
  headers: Record<string, string>;
  /** The upstream answered with these headers: what watches its body go by (usage, for calibration). */
  observe(status: number, headers: IncomingHttpHeaders): ResponseObserver | undefined;
  /** Runs once the upstream's whole reply reached the client; returns the outcome's part the reply's usage makes (cached tokens, cost). */
  afterSuccess(status: number, observer: ResponseObserver | undefined): Promise<OutcomePart>;
  /** Runs when the request ended any other way: writes nothing, takes back what it made. */
  abandon(): Promise<void>;
}

/** What the request path plans with: the engine's dependencies, and the compactor that prepares checkpoints off the request path (rule 10). */
export interface PathDeps extends PipelineDeps {
  background: BackgroundCompactor;
}

export interface PlanTokens<T> {
  /** The whole prompt as the client sent it (calibrated estimate): x-recap-tokens-in. */
  tokensIn: number;
  toolsTokens: number;
  /** Uncalibrated tokens of what went upstream (the view, or the client's own items when null). */
  rawOut(view: readonly T[] | null): number;
}

export interface PlanInput<T> {
  deps: PathDeps;
  tokens: PlanTokens<T>;
  model: ModelConfig | undefined;
  /** The budget, when the model has a config: `prompt` (tool definitions included) is x-recap-budget. */
  budget?: Budget | undefined;
  /** Who asked, when the model compacts (a 2xx proves the caller's credential: auth/credential-proofs.ts). */
  identity?: Identity;
  /**
   * Absent when the model has no compaction (unconfigured or strategy off); `budget`: the messages'
   * (tools taken out); `counted`: the request as counted, for the room its look leaves (prepare-room.ts).
   */
  compaction?: { ctx: StepContext; a: Analysis<T>; decision: Decision<T>; budget: number; bytes: number; counted: CountedRequest };
  /** The view goes with recap_recall injected. */
  recall?: RecallSession<T> | undefined;
}

/** The view map of a decision (events/view-map.ts): the request's messages and what the view made of each. */
function viewMapOf<T>(a: Analysis<T>, decision: Decision<T>, recalled: ReadonlySet<number> | undefined) {
  const { base } = decision;
  const shape = decision.shape ?? base;
  const view = viewMap({
    pinnedCount: a.seg.pinnedCount,
    summaryIndex: a.seg.summaryIndex,
    tokens: a.itemTokens,
    kinds: a.seg.kinds,
    covered: shape.covered,
    kept: shape.kept,
    cleared: shape.cleared,
    summarizedUpTo: base.summary === null ? 0 : base.covered,
    ...(recalled ? { recalled } : {}),
  });
  return { view, summary_tokens: base.summary === null ? 0 : a.summaryTokens(base.summary) };
}

export function createRoutePlan<T>({ deps, tokens, model, budget, identity, compaction, recall }: PlanInput<T>): RoutePlan<T> {
  const decision = compaction?.decision;
  // Audit mode (audit.ts): the decision is what enforcing would have done, the client's bytes go.
  const audit = model?.compaction.mode === 'audit';
  const view = audit ? null : (decision?.view ?? null);
  const action = audit ? 'none' : (decision?.action ?? 'none');
  // What the decision's view holds: forwarded, or in audit mode projected.
  const planned = decision?.view ? decision.viewTokens + tokens.toolsTokens + (recall?.toolTokens ?? 0) : tokens.tokensIn;
  const tokensOut = view ? planned : tokens.tokensIn;
  const label = model?.match ?? 'unconfigured';
  const tally = compaction?.ctx.summarized;
  // The plan's part of the request's outcome (observability/outcome.ts): its headers, log line, metrics and event come from it.
  const outcome: OutcomePart = {
    ...(identity ? { conversation: identity.conversation.slice(0, 16) } : {}),
    action,
    tokensIn: tokens.tokensIn,
    tokensOut,
    budget: budget?.prompt,
    cleared: decision ? (decision.stubs ?? decision.base.cleared.size) : 0,
    ...(decision?.action === 'compacted' ? { compaction: decision.clearingOnly ? 'clearing' : 'summary' } : {}),
    ...(audit ? { audit: auditActionOf(decision), projectedTokensOut: planned } : {}),
    ...(tally && tally.calls > 0 ? summarizerPart(tally) : {}),
    ...(compaction?.ctx.weighed?.costDecision ? { costDecision: compaction.ctx.weighed.costDecision } : {}),
    // The view recap chose (audit mode: would have chosen), message by message, for the event.
    ...(compaction && decision?.view ? { viewMap: () => viewMapOf(compaction.a, decision, recall?.recalled) } : {}),
  };
  // Both sides count the tool definitions: what went (or would go) upstream against what the window leaves the prompt.
  if (compaction && budget && planned > budget.prompt) {
    // Only the newest step (with the pinned block and the task) is left, and it does not fit.
    deps.metrics.overBudget.inc({ model: label });
    deps.logger.warn(
      { conversation: outcome.conversation, tokensOut: planned, budget: budget.prompt },
      'request over budget: the newest step alone does not fit; forwarded as it is',
    );
  }
  let settled = false;
  const release = async () => {
    await decision?.claim?.release();
  };
  const takeBack = async () => {
    if (settled) return;
    settled = true;
    if (compaction && decision?.ownPending) await deps.records.discard(compaction.ctx.key, decision.ownPending);
    await release();
  };

  return {
    view,
    recall,
    outcome,
    headers: recapHeaders(outcome),
    observe(status, responseHeaders) {
      // Only models that calibrate or have prices need the reported usage; the others skip reading the reply.
      return model && (calibrates(model) || model.pricing) ? observeUsage(status, responseHeaders) : undefined;
    },
    async afterSuccess(status, observer) {
      // Only a 2xx shows the upstream served this caller: after a 401 (a junk key), a 429 or a 5xx
      // nothing is written and nothing prepared, so refused callers leave no records behind.
      const ok = status >= 200 && status < 300;
      if (ok && identity && model) deps.proofs.accepted(identity.tenant, model);
      if (!ok) await takeBack();
      else if (compaction && decision) {
        settled = true;
        const { key } = compaction.ctx;
        if (decision.write) await deps.records.add(key, decision.write, compaction.a.links);
        for (const cp of decision.confirm) await deps.records.confirm(key, cp, compaction.a.links);
        await release();
      }
      const usage = observer?.usage();
      // What recap sent, counted again only for calibration: a view is a pass over the whole history.
      if (model && usage !== undefined && calibrates(model)) {
        deps.tokens.observe(model, tokens.rawOut(view) + (recall?.rawToolTokens ?? 0), usage.promptTokens, identity?.tenant ?? null);
      }
      const layout = compaction?.a.layout;
      const priced =
        model && usage !== undefined
          ? priceRequest(deps.metrics, model, usage, tally?.cost, {
              clientTokens: tokens.tokensIn,
              sentTokens: tokensOut,
              newTokens: layout ? newestTurnTokens(layout) : tokens.tokensIn,
              asSent: view === null,
              ...(audit && layout ? { projected: { tokens: planned, stable: decision?.action === 'compacted' ? layout.fixedTokens : planned - newestTurnTokens(layout) } } : {}),
            })
          : {};
      // A request that adds less than the room its conversation's last look left has nothing to prepare (rule 10).
      if (ok && compaction && !deps.background.fitsRoom(compaction.ctx.key, compaction.counted, compaction.budget)) {
        deps.background.consider(compaction.ctx, compaction.a, compaction.decision, compaction.budget, compaction.bytes, compaction.counted);
      }
      return priced;
    },
    abandon: takeBack,
  };
}
