import type { ModelConfig } from '../config.js';
import type { AppDeps } from '../deps.js';
import type { WireRoute } from '../http/compacting-handler.js';
import { isCompactable, parseResponsesRequest } from './parse-request.js';
import type { ResponseItem, ResponsesRequest } from './types.js';

/** Forwarded before counting: nothing to compact (no config, strategy off, or state kept by the provider). */
function canForwardFirst(body: ResponsesRequest, _rawBytes: number, model: ModelConfig | undefined): boolean {
  return !model || model.compaction.strategy === 'off' || !isCompactable(body);
}

/** POST /v1/responses: the Responses wire format's part of the compacting route. */
export function responsesRoute(deps: AppDeps): WireRoute<ResponsesRequest, ResponseItem> {
  return {
    upstreamPath: '/responses',
    parse: parseResponsesRequest,
    canForwardFirst,
    compaction: deps.responses,
    withView: (_raw, body, view) => Buffer.from(JSON.stringify({ ...body, input: view })),
  };
}
