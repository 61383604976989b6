import type { ModelConfig } from '../../config/config.js';
import type { WireRoute } from '../../http/compacting-handler.js';
import { spliceArray } from '../../json/splice.js';
import type { ForwardFirst } from '../../pipeline/forward-first.js';
import type { AppDeps } from '../../runtime/deps.js';
import { isCompactable, type ResponsesBody, readResponsesRequest } from './parse-request.js';
import { responsesRecall } from './recall.js';
import { responsesStreamEnd } from './stream-end.js';
import type { ResponseItem, ResponsesRequest } from './types.js';

/** Forwarded before counting: nothing to compact (no config, strategy off, or state kept by the provider). */
function canForwardFirst({ body }: ResponsesBody, model: ModelConfig | undefined): ForwardFirst | null {
  return !model || model.compaction.strategy === 'off' || !isCompactable(body) ? 'below both lines' : null;
}

/** POST /v1/responses: the Responses wire format's part of the compacting route. */
export function responsesRoute(deps: AppDeps): WireRoute<ResponsesRequest, ResponseItem, ResponsesBody> {
  return {
    itemsKey: 'input',
    upstreamPath: '/responses',
    read: (raw, pause, arrived) => readResponsesRequest(raw, pause, deps.seen, arrived),
    canForwardFirst,
    compaction: deps.responses,
    // Compacted requests always have an `input` array (isCompactable).
    withView: (parsed, view) => spliceArray(parsed, 'input', parsed.body.input as ResponseItem[], view),
    streamEnd: responsesStreamEnd,
    recall: responsesRecall,
  };
}
