import type { ChatPlan } from '../chat/compaction-step.js';
import type { RequestLog } from '../chat/request-log.js';
import type { ModelConfig } from '../config.js';
import type { Identity } from '../conversation/identify.js';
import { type Analysis, restTokensBetween } from './analyze.js';
import type { Decision } from './compact-inline.js';
import type { PipelineDeps } from './pipeline-deps.js';
import { releaseCompactionLock } from './single-flight.js';
import type { StepContext } from './step-context.js';
import { calibrates, type RequestTokens } from './token-service.js';
import { observeUsage } from './usage-observer.js';

// The decision as the handler uses it: headers for the client, then callbacks as the response
// goes out. A new checkpoint is written only once the upstream's reply reached the client whole:
// a turn that the client did not get (upstream broke or went silent, client left: rule 8) leaves
// nothing behind, and the client's retry makes its own. The compaction lock is held until then,
// so concurrent requests of the conversation wait for the checkpoint instead of summarizing the
// same span again, and the client's next turn, even if it beats the write, waits for it too.

export interface PlanInput {
  deps: PipelineDeps;
  log: RequestLog;
  tokens: RequestTokens;
  model: ModelConfig | undefined;
  /** Who asked, when the model compacts (a 2xx proves the caller's credential: auth/credential-proofs.ts). */
  identity?: Identity;
  /** Absent when the model has no compaction (unconfigured or strategy off). */
  compaction?: { ctx: StepContext; a: Analysis; decision: Decision; budget: number };
}

function forwardedTokens(tokens: RequestTokens, a: Analysis, d: Decision): number {
  if (!d.view) return tokens.tokensIn;
  return a.pinnedTokens + a.summaryTokens(d.base.summary) + restTokensBetween(a, d.omitted) + a.primingTokens + tokens.toolsTokens;
}

export function createChatPlan({ deps, log, tokens, model, identity, compaction }: PlanInput): ChatPlan {
  const decision = compaction?.decision;
  const action = decision?.action ?? 'none';
  const tokensOut = compaction ? forwardedTokens(tokens, compaction.a, compaction.decision) : tokens.tokensIn;
  const label = model?.match ?? 'unconfigured';
  deps.metrics.actions.inc({ model: label, action });
  deps.metrics.tokensIn.inc({ model: label }, tokens.tokensIn);
  deps.metrics.tokensOut.inc({ model: label }, tokensOut);
  deps.metrics.tokensSaved.inc({ model: label }, Math.max(0, tokens.tokensIn - tokensOut));
  log.action = action;
  log.tokensOut = tokensOut;

  let lockToken = decision?.write?.lockToken ?? null;
  const release = async () => {
    if (compaction && lockToken) {
      const token = lockToken;
      lockToken = null;
      await releaseCompactionLock(deps.records, compaction.ctx.key, token);
    }
  };

  return {
    messages: decision?.view ?? null,
    headers: {
      'x-recap-action': action,
      'x-recap-tokens-in': String(tokens.tokensIn),
      'x-recap-tokens-out': String(tokensOut),
    },
    observe(status, headers) {
      // Only models that calibrate need the reported usage; the others skip reading the reply.
      return model && calibrates(model) ? observeUsage(status, headers) : undefined;
    },
    async afterSuccess(status, observer) {
      // Only a 2xx shows the upstream served this caller: after a 401 (a junk key), a 429 or a 5xx
      // nothing is written and nothing prepared, so refused callers leave no records behind.
      const served = status >= 200 && status < 300;
      if (served && identity && model) deps.proofs.accepted(identity.tenant, model);
      if (compaction && decision?.write && served) {
        const { checkpoint, version } = decision.write;
        await deps.records.add(compaction.ctx.key, checkpoint, version);
      }
      await release();
      const reported = observer?.promptTokens();
      if (model && reported !== undefined) {
        const rawOut = decision?.view ? tokens.counter.countMessages(decision.view).total + tokens.rawTools : tokens.rawIn;
        deps.tokens.observe(model, rawOut, reported);
      }
      if (compaction && served) deps.background.consider(compaction.ctx, compaction.a, compaction.decision, compaction.budget);
    },
    async abandon() {
      await release();
    },
  };
}
