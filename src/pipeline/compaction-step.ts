import type { ChatPlan, CompactionStep, PrepareInput } from '../chat/compaction-step.js';
import { summaryCodec } from '../compaction/summary-message.js';
import type { ModelConfig } from '../config.js';
import { callerOf } from '../auth/caller.js';
import { type Identity, credentialOf, identify } from '../conversation/identify.js';
import { withoutRecords } from '../conversation/no-records.js';
import { type Analysis, analyze, candidates, noSummaryBase, viewCost } from './analyze.js';
import { createChatPlan } from './chat-plan.js';
import { chooseBase } from './choose-view.js';
import { type Decision, compactInline, unchanged } from './compact-inline.js';
import type { PipelineDeps } from './pipeline-deps.js';
import type { StepContext } from './step-context.js';
import { type RequestTokens, countRequest } from './token-service.js';

// The compaction part of the request path (DESIGN "One request"): count tokens → identify →
// load record → choose the view → plan: fits / reuse / compact / degrade. The handler forwards
// what this returns and calls the plan back as the response goes out.

export function createCompactionStep(deps: PipelineDeps): CompactionStep {
  const recordless = withoutRecords(deps);
  return {
    async prepare(input: PrepareInput): Promise<ChatPlan> {
      const { body, model, log } = input;
      if (!model || model.compaction.strategy === 'off') {
        const tokens = await countRequest(deps.tokens, body, model);
        log.tokensIn = tokens.tokensIn;
        return createChatPlan({ deps, log, tokens, model });
      }
      // Identified before counting, so that the memo of the conversation's last request spares
      // hashing its history again.
      const identity = identify(callerOf(input.req), input.req.headers, body.messages, { header: deps.config.server.conversation_header, secret: deps.secret });
      const tokens = await countRequest(deps.tokens, body, model, `${identity.tenant}.${identity.conversation}`, identity.leadingHashes);
      log.tokensIn = tokens.tokensIn;
      log.conversation = identity.conversation.slice(0, 16);
      // Forwarded first, it is below both lines by proof: nothing to choose, store or prepare.
      if (input.forwardedFirst) return createChatPlan({ deps, log, tokens, model, identity });
      // The one place where a caller that keeps no records (anonymous) is kept from them.
      const ctx = stepContext(identity.keepsRecords ? deps : recordless, input, model, tokens, identity);
      const budget = deps.tokens.budgetFor(model, body, tokens.toolsTokens);
      const codec = summaryCodec(deps.secret, ctx.identity.tenant);
      const a = analyze(body.messages, tokens.perMessage, tokens.hashes, tokens.primingTokens, tokens.countMessage, codec);
      const decision = await decide(ctx, a, budget);
      return createChatPlan({ deps: ctx.deps, log, tokens, model, identity, compaction: { ctx, a, decision, budget } });
    },
  };

  async function decide(ctx: StepContext, a: Analysis, budget: number): Promise<Decision> {
    const { compaction } = ctx.model;
    // Below both lines no stored summary can be needed (the least compacted view that fits is the
    // client's own) and nothing is prepared, so the store is not even asked.
    const raw = viewCost(a, noSummaryBase(a));
    if (raw <= compaction.trigger_ratio * budget && raw <= compaction.prepare_ratio * budget) return unchanged(a, noSummaryBase(a));
    const record = await ctx.deps.records.load(ctx.key);
    const stored = record === 'unavailable' ? null : record;
    const all = candidates(a, stored);
    const { choice, fits } = chooseBase(all, compaction.trigger_ratio * budget);
    const decision = fits ? unchanged(a, choice.base) : await compactInline(ctx, a, choice.base, stored?.version ?? 0, budget);
    const furthest = all[all.length - 1]!.base;
    return furthest.covered > decision.base.covered ? { ...decision, furthest } : decision;
  }
}

function stepContext(deps: PipelineDeps, input: PrepareInput, model: ModelConfig, tokens: RequestTokens, identity: Identity): StepContext {
  const { metrics } = deps;
  const summarizerModel = model.compaction.summarizer?.model ?? 'none';
  return {
    deps,
    model,
    identity,
    key: { tenant: identity.tenant, conversation: identity.conversation },
    counter: tokens.counter,
    log: input.log,
    signal: input.signal,
    authorization: credentialOf(input.req.headers) || undefined,
    recordSummarizer(mode, result, ms) {
      metrics.summarizerCalls.inc({ model: summarizerModel, outcome: result.ok ? 'ok' : (result.reason ?? 'error'), mode }, result.calls);
      metrics.summarizerDuration.observe({ mode }, ms / 1000);
      metrics.summarizerTokens.inc({ direction: 'total' }, result.summarizerTokens);
      deps.tenantBudget.record(identity.tenant, result.summarizerTokens);
      if (mode === 'inline') input.log.summarizerMs = Math.round(ms);
    },
  };
}
