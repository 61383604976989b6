import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { type Caller, mayUse } from '../auth/caller.js';
import { refuseOtherModels } from '../auth/model-gate.js';
import type { SeenItems } from '../body/seen-items.js';
import type { Config, ModelConfig } from '../config/config.js';
import { namedConversation } from '../conversation/identify.js';
import { errors, RecapError, sendError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { type OutcomePart, type RequestOutcome, recapHeaders } from '../observability/outcome.js';
import { clientField } from '../observability/request-log.js';
import { createEarlyRecords } from './early-record.js';
import { countOnce } from './count-once.js';
import { forwardFirstOf, promptBoundOnce } from './forward-first.js';
import { prepareRequest } from './prepare.js';
import { reuseFirst } from './reuse-first.js';
import { apiHeadersOf } from './shared-prefix.js';
import type { PathDeps, RoutePlan } from './route-plan.js';
import type { TokenService } from './token-service.js';
import { recallTurn } from '../recall/hops.js';
import { recallReply } from '../recall/reply.js';
import { matchOnArrival } from '../body/items-on-arrival.js';
import { createSlicer, SLICE_MS } from '../slicing/slicer.js';
import type { Upstream, UpstreamRegistry } from '../upstream/client.js';
import { upstreamRequestHeaders } from '../upstream/headers.js';
import { queryOf } from '../upstream/target.js';
import type { ParsedRequest, WireFormat } from '../wire/format.js';
import { requestAbort, type UpstreamAbort } from '../http/client-abort.js';
import { readBody } from '../http/read-body.js';
import { sendUpstreamResponse } from '../http/send-upstream-response.js';
import { isEventStream, judgeStreamEnd } from '../http/stream-end.js';

/** Conversations per route whose record a request reads as it arrives: those active in one process at once, a few hundred bytes each. */
const EARLY_RECORD_CONVERSATIONS = 4096;

/** The model config a name resolves to (none: forwarded without compaction) and the upstream it goes to. */
export interface ModelRoute {
  model: ModelConfig | undefined;
  upstream: string;
}

/** What a compacting route is built from (runtime/deps.ts's AppDeps holds these). */
export interface HandlerDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  upstreams: UpstreamRegistry;
  routeModel(model: string): ModelRoute;
  /** What the request path plans with (prepare.ts), the same for every wire format. */
  pipeline: PathDeps;
  /** The conversation items parsed lately, so that a request parses only what is new in it. */
  seen: SeenItems;
  /** The request path's token counters: forward-first reads what they counted before. */
  tokens: Pick<TokenService, 'counterFor'>;
}

/** A compacting route, as the request path of docs/design.md reads top to bottom. */
export function createCompactingHandler<T, P extends ParsedRequest>(deps: HandlerDeps, format: WireFormat<T, P>) {
  const { config } = deps;
  // recap's own conversation header never goes upstream; the clients' own session headers after it do.
  const stripHeaders = config.server.conversation_header.slice(0, 1);
  const earlyRecords = createEarlyRecords(deps.pipeline.records, deps.pipeline.secret, EARLY_RECORD_CONVERSATIONS);

  /** Sends `body` upstream; `answered` takes the answer's part of the outcome (status, time to headers). */
  function forward(
    upstream: Upstream,
    req: IncomingMessage,
    body: Buffer,
    signal: UpstreamAbort,
    answered: (part: OutcomePart) => void,
    conversation?: string,
  ): Promise<Dispatcher.ResponseData> {
    if (config.server.log_bodies) deps.logger.debug({ conversation, body: body.toString('utf8') }, 'forwarded body');
    const forwardedAt = performance.now();
    return upstream
      .request({
        method: 'POST',
        path: format.upstreamPath + queryOf(req.url ?? ''),
        headers: {
          ...upstreamRequestHeaders(req.headers, { apiKey: upstream.config.api_key, api: upstream.config.api }, { chat: true, stripHeaders }),
          'content-type': 'application/json',
        },
        body,
        signal,
      })
      .then((response) => {
        const upstreamHeadersMs = Math.round((performance.now() - forwardedAt) * 100) / 100;
        deps.metrics.upstreamDuration.observe({ upstream: upstream.name }, upstreamHeadersMs / 1000);
        answered({ upstreamStatus: response.statusCode, upstreamHeadersMs });
        return response;
      });
  }

  /** Serves one request and returns its outcome (observability/outcome.ts), put together here from what each step returns. */
  return async function compactingRoute(req: IncomingMessage, res: ServerResponse, opened: RequestOutcome, caller: Caller): Promise<RequestOutcome> {
    // Also aborted when recap itself fails after forwarding first.
    const aborts = requestAbort(res);
    let plan: RoutePlan<T> | undefined;
    let succeeded = false;
    // Observed however the reply ends: the hops were sent upstream even when the client is gone.
    let finishRecall: (() => void) | undefined;
    let early: Promise<Dispatcher.ResponseData> | undefined;
    let outcome: RequestOutcome = opened;
    // The last upstream answer's part (a reply with recalls is several requests): the same value whichever came last.
    let answer: OutcomePart = {};
    const answered = (part: OutcomePart) => {
      answer = part;
    };
    let forwardedMs: number | undefined;
    const send = (upstream: Upstream, body: Buffer, shortId?: string) => {
      // The first hop: what came before it was recap's own work (a recall's later hops are the upstream's).
      forwardedMs ??= Math.round((performance.now() - opened.startedAt) * 100) / 100;
      return forward(upstream, req, body, aborts.upstream, answered, shortId);
    };
    const returned = (): RequestOutcome => ({ ...outcome, ...answer, ...(forwardedMs !== undefined ? { forwardedMs } : {}) });
    // The conversation the client names, read once: forward-first and identify take it as a value.
    const conversation = namedConversation(req.headers, config.server.conversation_header);
    try {
      // The conversation's record is read from here on, beside the body, when its last request needed it.
      const arrival = earlyRecords.arrive(caller, conversation, format.items.route);
      const arriving = matchOnArrival(deps.seen, format.itemsKey);
      const raw = await readBody(req, config.server.body_limit_bytes, arriving.advance);
      // Keeping what is new in the body for later requests waits until a request that goes first has gone (below).
      const keeping: (() => Promise<void>)[] = [];
      const parsed = await format.read(raw, createSlicer(SLICE_MS), { seen: deps.seen, arrived: arriving, keepLater: (keep) => keeping.push(keep) });
      const { body } = parsed;
      outcome = { ...outcome, model: clientField(body.model) };
      if (!mayUse(caller, body.model)) throw errors.modelNotAllowed(body.model);
      refuseOtherModels(caller, body, format.itemsKey);
      const { model, upstream: upstreamName } = deps.routeModel(body.model);
      outcome = { ...outcome, modelLabel: model?.match ?? 'unconfigured' };
      const upstream = deps.upstreams.get(upstreamName);
      if (!upstream) throw errors.internal();
      // A key meant for one provider never goes to another's host.
      if (upstream.config.api !== format.upstreamApi) throw errors.wrongUpstreamApi(body.model, format.path, upstream.name, upstream.config.api, format.upstreamApi);

      const bound = promptBoundOnce(format, parsed, deps.tokens.counterFor);
      const forwardedFirst = forwardFirstOf(format, parsed, model, bound, conversation) ?? undefined;
      // Counted at most once, by reuse-first or by prepare().
      const count = countOnce(format, parsed, deps.pipeline.tokens);
      // Past its trigger, a conversation's request may go upstream on its last decision.
      const reusedFirst = forwardedFirst ? undefined : await reuseFirst(deps.pipeline, format, { caller, conversation, arrival, parsed, model, bound, count });
      if (forwardedFirst || reusedFirst) {
        outcome = { ...outcome, forwardedFirst: forwardedFirst ?? 'reused' };
        early = send(upstream, reusedFirst?.body ?? raw);
        // Settled below; a rejection while prepare() runs must not go unhandled.
        early.catch(() => undefined);
        // undici writes a request on a reused keep-alive connection from the event loop's check
        // phase (it first lets the idle socket report a close or stray bytes): prepare() starts
        // after that write, so that its counting does not hold the body back from the upstream.
        await nextMacrotask();
      }
      // Off the way to the upstream: a request that went first is there already.
      for (const keep of keeping) await keep();
      plan = await prepareRequest(deps.pipeline, format, {
        caller,
        conversation,
        arrival,
        parsed,
        model,
        signal: aborts.signal,
        forwardedFirst,
        reusedFirst,
        count,
        bytes: raw.length,
        apiHeaders: apiHeadersOf(req.headers),
      });
      outcome = { ...outcome, ...plan.outcome };
      const { view } = plan;
      const shortId = outcome.conversation;
      // A view that leaves something out goes with recap_recall, which recap answers inside the reply (rule 13).
      const recall = view && plan.recall && format.recall ? { wire: format.recall, turn: recallTurn(plan.recall, format.recall, view, deps, shortId) } : undefined;
      finishRecall = recall ? () => recall.turn.finish() : undefined;
      const forwarded = () => (view ? (recall ? recall.wire.body(parsed, view) : format.withView(parsed, view)) : raw);
      const first = await (early ?? send(upstream, forwarded(), shortId));

      const observer = plan.observe(first.statusCode, first.headers);
      const response = recall
        ? await recallReply({
            first,
            ...recall,
            parsed,
            upstream: upstream.name,
            observeFirst: observer?.onChunk,
            holdLimit: config.server.body_limit_bytes,
            send: (next) => send(upstream, next, shortId),
          })
        : first;
      if (recall && recall.turn.answered > 0) outcome = { ...outcome, recalls: recall.turn.answered };
      // A reply with recalls in it was observed hop by hop: calibration reads its first hop only.
      const watch = recall ? undefined : observer;
      const ending = response.statusCode < 300 && isEventStream(response.headers) ? judgeStreamEnd(format.streamEnd) : undefined;
      const sent = await sendUpstreamResponse(res, response, {
        upstream: upstream.name,
        // A stream's headers leave before its recalls are known; a whole reply's say how many were answered.
        extraHeaders: recapHeaders(outcome, recall && !ending ? recall.turn.answered : undefined),
        observe: ending
          ? (chunk) => {
              watch?.onChunk(chunk);
              ending.feed(chunk);
            }
          : watch?.onChunk,
        clientStallMs: config.server.client_stall_ms,
      });
      // A stream that ended in an error event (or without its API's end) is a turn the client did not get.
      const ended = sent === 'complete' && ending && !ending.succeeded() ? 'upstream_stream_failed' : sent;
      outcome = { ...outcome, outcome: ended, ...(ended === 'upstream_timeout' ? { error: ended } : {}) };
      if (ended === 'complete') {
        succeeded = true;
        outcome = { ...outcome, ...(await plan.afterSuccess(response.statusCode, observer)) };
      }
    } catch (err) {
      aborts.abort();
      if (aborts.clientGone()) return { ...returned(), outcome: 'client_closed' };
      const recapErr = err instanceof RecapError ? err : errors.internal();
      if (!(err instanceof RecapError)) deps.logger.error({ err, route: outcome.route }, 'request failed');
      outcome = { ...outcome, error: recapErr.code };
      sendError(res, recapErr, {}, format.errorBody);
    } finally {
      finishRecall?.();
      if (plan && !succeeded) await plan.abandon();
    }
    return returned();
  };
}
