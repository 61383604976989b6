import { callerOf } from '../auth/caller.js';
import { identify } from '../conversation/identify.js';
import type { ChatMessage, ChatRequest } from '../messages/types.js';
import type { PipelineDeps } from '../pipeline/pipeline-deps.js';
import { type CountedItems, planCompaction, planUntouched, type RouteCompaction } from '../pipeline/prepare.js';
import type { RoutePlan } from '../pipeline/route-plan.js';
import { countRequest, type RequestTokens } from '../pipeline/token-service.js';
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
      const tokens = await countRequest(deps.tokens, body, model);
      log.tokensIn = tokens.tokensIn;
      log.conversation = identity.conversation.slice(0, 16);
      const budget = deps.tokens.budgetFor(model, body, tokens.toolsTokens);
      return planCompaction(deps, { ...input, model }, { items: body.messages, wire: chatWire, identity, counted: counted(tokens), budget });
    },
  };
}
