import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { AppDeps } from '../deps.js';
import { RecapError, errors, sendError } from '../errors.js';
import { requestAbort } from '../http/client-abort.js';
import { readBody } from '../http/read-body.js';
import { sendUpstreamResponse } from '../http/send-upstream-response.js';
import { canForwardFirst } from '../pipeline/forward-first.js';
import { SLICE_MS, createSlicer } from '../slicer.js';
import type { Upstream } from '../upstream/client.js';
import { upstreamRequestHeaders } from '../upstream/headers.js';
import type { ChatPlan } from './compaction-step.js';
import { readChatRequest } from './parse-request.js';
import { type RequestLog, clientField } from './request-log.js';
import { spliceMessages } from './splice.js';

/** POST /v1/chat/completions, as the request path of DESIGN.md reads top to bottom. */
export function createChatHandler(deps: AppDeps) {
  const { config } = deps;
  const stripHeaders = [config.server.conversation_header];

  function forward(upstream: Upstream, req: IncomingMessage, body: Buffer, signal: AbortSignal, log: RequestLog): Promise<Dispatcher.ResponseData> {
    if (config.server.log_bodies) deps.logger.debug({ conversation: log.conversation, body: body.toString('utf8') }, 'forwarded body');
    const forwardedAt = performance.now();
    return upstream
      .request({
        method: 'POST',
        path: '/chat/completions',
        headers: {
          ...upstreamRequestHeaders(req.headers, { apiKey: upstream.config.api_key }, { chat: true, stripHeaders }),
          'content-type': 'application/json',
        },
        body,
        signal,
      })
      .then((response) => {
        log.upstreamStatus = response.statusCode;
        log.upstreamHeadersMs = Math.round((performance.now() - forwardedAt) * 100) / 100;
        deps.metrics.upstreamDuration.observe({ upstream: upstream.name }, log.upstreamHeadersMs / 1000);
        return response;
      });
  }

  return async function chatCompletions(req: IncomingMessage, res: ServerResponse, log: RequestLog): Promise<void> {
    // Also aborted when recap itself fails after forwarding first.
    const aborts = requestAbort(res);
    const { signal } = aborts;
    let plan: ChatPlan | undefined;
    let succeeded = false;
    let early: Promise<Dispatcher.ResponseData> | undefined;
    try {
      const raw = await readBody(req, config.server.body_limit_bytes);
      const chat = await readChatRequest(raw, createSlicer(SLICE_MS));
      const { body } = chat;
      log.model = clientField(body.model);
      const route = deps.routeModel(body.model);
      log.modelLabel = route.model?.match ?? 'unconfigured';
      const upstream = deps.upstreams.get(route.upstream);
      if (!upstream) throw errors.internal();

      if (canForwardFirst(body, raw.length, route.model, req.headers, config.server.conversation_header)) {
        early = forward(upstream, req, raw, signal, log);
        // Settled below; a rejection while prepare() runs must not go unhandled.
        early.catch(() => undefined);
        // undici writes a request on a reused keep-alive connection from the event loop's check
        // phase (it first lets the idle socket report a close or stray bytes): prepare() starts
        // after that write, so that its counting does not hold the body back from the upstream.
        await nextMacrotask();
      }
      plan = await deps.compaction.prepare({ req, body, model: route.model, signal, log, forwardedFirst: early !== undefined });
      const response = await (early ?? forward(upstream, req, plan.messages ? spliceMessages(chat, plan.messages) : raw, signal, log));

      const observer = plan.observe(response.statusCode, response.headers);
      const outcome = await sendUpstreamResponse(res, response, {
        upstream: upstream.name,
        extraHeaders: plan.headers,
        observe: observer?.onChunk,
        clientStallMs: config.server.client_stall_ms,
      });
      log.outcome = outcome;
      if (outcome === 'upstream_timeout') log.error = outcome;
      if (outcome === 'complete') {
        succeeded = true;
        await plan.afterSuccess(response.statusCode, observer);
      }
    } catch (err) {
      aborts.abort();
      if (aborts.clientGone()) {
        log.outcome = 'client_closed';
        return;
      }
      const recapErr = err instanceof RecapError ? err : errors.internal();
      if (!(err instanceof RecapError)) deps.logger.error({ err }, 'chat request failed');
      log.error = recapErr.code;
      sendError(res, recapErr);
    } finally {
      if (plan && !succeeded) await plan.abandon();
    }
  };
}
