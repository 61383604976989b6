import { chatWire } from '../chat/items.js';
import type { ChatPlan, CompactionStep, PrepareInput } from '../chat/compaction-step.js';
import type { ChatMessage } from '../chat/types.js';
import { summaryCodec } from '../compaction/summary-message.js';
import { callerOf } from '../auth/caller.js';
import type { ModelConfig } from '../config.js';
import { type Identity, credentialOf, identify } from '../conversation/identify.js';
import { analyze } from './analyze.js';
import { decide } from './decide.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { type PlanTokens, createRoutePlan } from './route-plan.js';
import { type StepContext, summarizerRecorder } from './step-context.js';
import { type RequestTokens, countRequest } from './token-service.js';

// The compaction part of the chat route's request path (DESIGN "One request"): identify → count
// tokens → load record → choose the view → plan: fits / reuse / compact / degrade. The handler
// forwards what this returns and calls the plan back as the response goes out.

function planTokens(t: RequestTokens): PlanTokens<ChatMessage> {
  return {
    tokensIn: t.tokensIn,
    toolsTokens: t.toolsTokens,
    rawOut: (view) => (view ? t.counter.countMessages(view).total + t.rawTools : t.rawIn),
  };
}

export function createCompactionStep(deps: PipelineDeps): CompactionStep {
  return {
    async prepare(input: PrepareInput): Promise<ChatPlan> {
      const { body, model, log } = input;
      if (!model || model.compaction.strategy === 'off') {
        const tokens = await countRequest(deps.tokens, body, model);
        log.tokensIn = tokens.tokensIn;
        const budget = model ? deps.tokens.budgetFor(model, body, tokens.toolsTokens) : undefined;
        return createRoutePlan({ deps, log, tokens: planTokens(tokens), model, budget });
      }
      // Identified before counting, so that the memo of the conversation's last request spares
      // hashing its history again.
      const identity = identify(callerOf(input.req), input.req.headers, body.messages, { headers: deps.config.server.conversation_header, secret: deps.secret });
      const tokens = await countRequest(deps.tokens, body, model, `${identity.tenant}.${identity.conversation}`, identity.leadingHashes);
      log.tokensIn = tokens.tokensIn;
      log.conversation = identity.conversation.slice(0, 16);
      const budget = deps.tokens.budgetFor(model, body, tokens.toolsTokens);
      // Forwarded first, it is below both lines by proof: nothing to choose, store or prepare.
      if (input.forwardedFirst) return createRoutePlan({ deps, log, tokens: planTokens(tokens), model, budget, identity });
      const ctx = stepContext(deps, input, model, tokens, identity);
      const a = analyze({
        items: body.messages,
        tokens: tokens.perMessage,
        hashes: tokens.hashes,
        primingTokens: tokens.primingTokens,
        countItem: tokens.countMessage,
        wire: chatWire,
        codec: summaryCodec(deps.secret, identity.tenant),
      });
      const decision = await decide(ctx, a, budget);
      return createRoutePlan({ deps, log, tokens: planTokens(tokens), model, budget, identity, compaction: { ctx, a, decision, budget, bytes: input.bytes } });
    },
  };
}

function stepContext(deps: PipelineDeps, input: PrepareInput, model: ModelConfig, tokens: RequestTokens, identity: Identity): StepContext {
  return {
    deps,
    model,
    identity,
    key: { tenant: identity.tenant, conversation: identity.conversation },
    counter: tokens.counter,
    // A caller that keeps no records (anonymous) reads and writes none: the engine checks this one flag.
    keepsRecords: identity.keepsRecords,
    log: input.log,
    signal: input.signal,
    authorization: credentialOf(input.req.headers) || undefined,
    recordSummarizer: summarizerRecorder(deps, model, identity.tenant, input.log),
  };
}
