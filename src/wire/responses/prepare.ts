import { callerOf } from '../../auth/caller.js';
import { jsonItemHash } from '../../conversation/canonical.js';
import { identifyBy } from '../../conversation/identify.js';
import type { PipelineDeps } from '../../pipeline/pipeline-deps.js';
import { planCompaction, planUntouched, prefetchRecord, type RouteCompaction } from '../../pipeline/prepare.js';
import { countResponsesRequest, inputItems } from './count.js';
import { responsesWire } from './items.js';
import { isCompactable } from './parse-request.js';
import { responsesRecallOffer } from './recall-offer.js';
import type { ResponseItem, ResponsesRequest } from './types.js';

// The Responses route's part of the request path before the engine: identify (the conversation is
// this route's own: a chat conversation of the same id is another) → count → budget; then
// the same engine as chat completions (pipeline/prepare.ts). A request whose history the provider
// keeps (`previous_response_id`, `conversation`) or whose input is a plain string is forwarded
// untouched.

/** What opens a conversation: `instructions`, the leading system/developer items, the first user item. */
function opening(body: ResponsesRequest, items: readonly ResponseItem[]): string[] {
  const out = typeof body.instructions === 'string' ? [jsonItemHash({ instructions: body.instructions })] : [];
  for (const item of items) {
    out.push(jsonItemHash(item));
    if (responsesWire.describe(item).kind === 'user') break;
  }
  return out;
}

export function createResponsesCompaction(deps: PipelineDeps): RouteCompaction<ResponsesRequest, ResponseItem> {
  return {
    async prepare(input) {
      const { body, model, log } = input;
      if (!model || model.compaction.strategy === 'off' || !isCompactable(body)) {
        const counted = await countResponsesRequest(deps.tokens, body, model);
        log.tokensIn = counted.tokensIn;
        return planUntouched(deps, input, counted, model ? deps.tokens.budgetFor(model, body, counted.toolsTokens) : undefined);
      }
      const items = inputItems(body);
      const identity = identifyBy(callerOf(input.req), input.req.headers, () => opening(body, items), {
        headers: deps.config.server.conversation_header,
        secret: deps.secret,
        route: responsesWire.route,
      });
      const record = prefetchRecord(deps, { ...input, model }, identity);
      const counted = await countResponsesRequest(deps.tokens, body, model);
      log.tokensIn = counted.tokensIn;
      log.conversation = identity.conversation.slice(0, 16);
      const recall = responsesRecallOffer(model, body, counted, deps.tokens.scaleFor(model));
      // The injected tool is planned for as one of the request's tools (rule 3).
      const budget = deps.tokens.budgetFor(model, body, counted.toolsTokens + (recall?.toolTokens ?? 0));
      return planCompaction(deps, { ...input, model }, { items, wire: responsesWire, identity, counted, budget, recall, record });
    },
  };
}
