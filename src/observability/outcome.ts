import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { RequestLog } from './request-log.js';

// The outcome of a request, composed once from one value: the request path returns its parts (the
// plan's, the reply's, the price's) and the handler puts them together; from that value come the
// x-recap-* headers (recapHeaders), and once the response is out the log line, the request's
// metrics and its dashboard event (recordOutcome).

/** What the request path returns of one request: read-only, put together from its parts. */
export type RequestOutcome = Readonly<RequestLog>;

/** A part of the outcome that one step of the path returns. */
export type OutcomePart = Partial<RequestOutcome>;

/**
 * The x-recap-* headers of a planned request (docs/headers.md). `recalls`: the recap_recall calls
 * answered, for a whole reply that was offered the tool (a stream's headers leave before its
 * recalls are known).
 */
export function recapHeaders(o: OutcomePart, recalls?: number): Record<string, string> {
  const headers: Record<string, string> = {};
  if (o.action === undefined) return headers;
  headers['x-recap-action'] = o.action;
  headers['x-recap-tokens-in'] = String(o.tokensIn ?? 0);
  // In audit mode the projected view's tokens: what enforcing would have forwarded.
  headers['x-recap-tokens-out'] = String(o.projectedTokensOut ?? o.tokensOut ?? 0);
  if (o.audit !== undefined) headers['x-recap-audit'] = o.audit;
  if (o.budget !== undefined) headers['x-recap-budget'] = String(o.budget);
  if (recalls !== undefined) headers['x-recap-recalls'] = String(recalls);
  return headers;
}

/** The tenant a request's counts go to, when its records are kept (events/recorder.ts's RequestTenant). */
export interface OutcomeOwner {
  tenant: string;
  vouched: boolean;
}

/** Who asked, as the log line and the event name them. */
export interface OutcomeCaller {
  /** A configured client's name. */
  client?: string | undefined;
  owner?: OutcomeOwner | undefined;
}

export interface OutcomeDeps {
  metrics: Metrics;
  logger: Logger;
  /** Queues the request's event (events/recorder.ts); `owner`: whose counts a request without a conversation adds to. */
  events: { record(outcome: RequestOutcome, durationMs: number, owner?: OutcomeOwner): void };
}

/** The plan's figures in the metrics: tokens in and out, saved, what audit mode projects. */
function countPlan(metrics: Metrics, o: RequestOutcome): void {
  if (o.action === undefined) return;
  const model = o.modelLabel ?? 'unconfigured';
  const tokensIn = o.tokensIn ?? 0;
  const tokensOut = o.tokensOut ?? tokensIn;
  metrics.actions.inc({ model, action: o.action });
  metrics.tokensIn.inc({ model }, tokensIn);
  metrics.tokensOut.inc({ model }, tokensOut);
  metrics.tokensSaved.inc({ model }, Math.max(0, tokensIn - tokensOut));
  if (o.audit !== undefined) {
    metrics.auditActions.inc({ model, audit: o.audit });
    metrics.projectedTokensSaved.inc({ model }, Math.max(0, tokensIn - (o.projectedTokensOut ?? tokensIn)));
  }
}

/** The request is over with `status`: its log line, its metrics and its event, all from `outcome` (returned, with its status). */
export function recordOutcome(deps: OutcomeDeps, outcome: RequestOutcome, status: number, caller: OutcomeCaller = {}): RequestOutcome {
  const done: RequestOutcome = { ...outcome, status };
  const seconds = (performance.now() - done.startedAt) / 1000;
  deps.metrics.requests.inc({ route: done.route, model: done.modelLabel ?? '', status: String(status) });
  deps.metrics.requestDuration.observe({ route: done.route }, seconds);
  countPlan(deps.metrics, done);
  const durationMs = Math.round(seconds * 1000 * 100) / 100;
  // The target names the conversation in full (its id as the client sent it), the view map every
  // message's place: they go to the event only.
  const { target: _target, viewMap: _viewMap, ...line } = done;
  deps.logger.info({ ...line, client: caller.client, durationMs }, 'request');
  deps.events.record(done, durationMs, caller.owner);
  return done;
}
