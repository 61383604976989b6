import { spliceArray } from '../../body/splice.js';
import { jsonItemHash } from '../../conversation/canonical.js';
import { errorBody } from '../../errors.js';
import type { WireFormat } from '../format.js';
import { countResponsesRequest, inputItems } from './count.js';
import { responsesPromptBound } from './forward-bound.js';
import { responsesWire } from './items.js';
import { isCompactable, type ResponsesBody, readResponsesRequest } from './parse-request.js';
import { responsesRecall } from './recall.js';
import { responsesRecallOffer } from './recall-offer.js';
import { responsesStreamEnd } from './stream-end.js';
import type { ResponseItem } from './types.js';
import { responsesSharedPrefix } from './shared-prefix.js';

// A request whose history the provider keeps (`previous_response_id`, `conversation`) or whose
// input is a plain string is forwarded untouched. The conversation is this route's own: a chat
// conversation of the same id is another.

/** POST /v1/responses: OpenAI's Responses API, its items the stateless `input` array. */
export const responsesFormat: WireFormat<ResponseItem, ResponsesBody> = {
  path: '/v1/responses',
  upstreamPath: '/responses',
  upstreamApi: 'openai',
  itemsKey: 'input',
  items: responsesWire,
  read: readResponsesRequest,
  compactable: ({ body }) => (isCompactable(body) ? inputItems(body) : null),
  // `instructions`, the leading system/developer items, the first user item.
  opening({ body }, items) {
    const out = typeof body.instructions === 'string' ? [jsonItemHash({ instructions: body.instructions })] : [];
    for (const item of items) {
      out.push(jsonItemHash(item));
      if (responsesWire.describe(item).kind === 'user') break;
    }
    return out;
  },
  count: (counters, { body, run }, model) => countResponsesRequest(counters, body, model, run),
  recallOffer: (model, { body }, counted, scale) => responsesRecallOffer(model, body, counted, scale),
  promptBound: responsesPromptBound,
  // Compacted requests always have an `input` array (isCompactable).
  withView: (parsed, view) => spliceArray(parsed, 'input', parsed.body.input as ResponseItem[], view),
  streamEnd: responsesStreamEnd,
  recall: responsesRecall,
  sharedPrefix: responsesSharedPrefix,
  errorBody,
};
