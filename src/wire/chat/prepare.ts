import { callerOf } from '../../auth/caller.js';
import type { ModelConfig } from '../../config/config.js';
import { identify } from '../../conversation/identify.js';
import type { ChatMessage, ChatRequest } from '../../messages/types.js';
import type { PipelineDeps } from '../../pipeline/pipeline-deps.js';
import { type CountedItems, planCompaction, planUntouched, prefetchRecord, type RecallOffer, type RouteCompaction } from '../../pipeline/prepare.js';
import type { RoutePlan } from '../../pipeline/route-plan.js';
import { countRequest, type RequestTokens } from '../../pipeline/token-service.js';
import { recallRefusal } from '../../recall/offer.js';
import { CHAT_RECALL_TOOL } from '../../recall/tool.js';
import { recallTokensAfterFunctions } from '../../recall/tool-tokens.js';
import type { TokenCounter } from '../../tokens/counter.js';
import { chatWire } from './items.js';

// The chat route's part of the request path before the engine: identify → count tokens → budget;
// then the engine (prepare.ts).

function counted(t: RequestTokens): CountedItems<ChatMessage> {
  return {
    counter: t.counter,
    perItem: t.perMessage,
    fixedTokens: t.primingTokens,
    hashes: t.hashes,
    countItem: t.countMessage,
    tokensIn: t.tokensIn,
    toolsTokens: t.toolsTokens,
    rawOut: (view) => (view ? t.counter.countMessages(view).total + t.rawTools : t.rawIn),
  };
}

/** What recap_recall adds to a chat request's tools: after its own functions, one figure per encoding (tool-tokens.ts). */
function recallToolTokens(body: ChatRequest, counter: TokenCounter): number {
  const hasFunctions = Array.isArray(body.tools) && body.tools.some((t) => (t as { type?: unknown } | null)?.type === 'function');
  if (!hasFunctions) return counter.countTools({ model: body.model, messages: body.messages, tools: [CHAT_RECALL_TOOL] });
  return recallTokensAfterFunctions(counter);
}

/** What recap_recall costs a chat request that may be offered it (recall/offer.ts), else undefined. */
function chatRecallOffer(model: ModelConfig, body: ChatRequest, t: RequestTokens, scale: (n: number) => number): RecallOffer | undefined {
  if (recallRefusal(model, { toolChoice: body.tool_choice, n: body.n, tools: body.tools, functions: body.functions }) !== null) return undefined;
  const raw = recallToolTokens(body, t.counter);
  return { rawToolTokens: raw, toolTokens: scale(t.rawTools + raw) - t.toolsTokens };
}

export function createChatCompaction(deps: PipelineDeps): RouteCompaction<ChatRequest, ChatMessage> {
  return {
    async prepare(input): Promise<RoutePlan<ChatMessage>> {
      const { body, model, log } = input;
      if (!model || model.compaction.strategy === 'off') {
        const tokens = await countRequest(deps.tokens, body, model);
        log.tokensIn = tokens.tokensIn;
        return planUntouched(deps, input, counted(tokens), model ? deps.tokens.budgetFor(model, body, tokens.toolsTokens) : undefined);
      }
      const identity = identify(callerOf(input.req), input.req.headers, body.messages, { headers: deps.config.server.conversation_header, secret: deps.secret });
      const record = prefetchRecord(deps, { ...input, model }, identity);
      const tokens = await countRequest(deps.tokens, body, model);
      log.tokensIn = tokens.tokensIn;
      log.conversation = identity.conversation.slice(0, 16);
      const recall = chatRecallOffer(model, body, tokens, deps.tokens.scaleFor(model));
      // The injected tool is planned for as one of the request's tools (rule 3).
      const budget = deps.tokens.budgetFor(model, body, tokens.toolsTokens + (recall?.toolTokens ?? 0));
      return planCompaction(deps, { ...input, model }, { items: body.messages, wire: chatWire, identity, counted: counted(tokens), budget, recall, record });
    },
  };
}
