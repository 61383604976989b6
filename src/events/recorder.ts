import type { EventsConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { RequestLog } from '../observability/request-log.js';
import { headChars } from '../compaction/text.js';
import { eventCounts, spendCounts } from '../store/event-counts.js';
import type { ConversationEvent, EventLog, RecordedEvent } from '../store/event-log.js';
import { StoreUnavailableError } from '../store/store.js';
import { eventFromLog } from './event-from-log.js';

// Writes the events after their responses, off the request path: record() only queues, and the
// queue is bounded (past events.queue_max new events are dropped and counted), so a slow or
// unreachable store never delays, fails or piles up behind a response (docs/design.md rule 8). Events are
// written in batches, a batch FLUSH_MS after its first event (or once it holds BATCH_MAX): the
// store is then asked once per batch, in one round trip, instead of several times per request.

/** Whose a request is when it belongs to no conversation with records (pass-through, an unconfigured model). */
export interface RequestTenant {
  tenant: string;
  /** recap vouches for the tenant (a configured client, the shared anonymous one); else only the upstream judges it. */
  vouched: boolean;
}

export interface EventRecorder {
  /**
   * Queues what a finished request leaves: its event, when it belongs to a conversation
   * (log.target); else, for its tenant, its counts only (the overview's figures per model and
   * route). An error goes to the error lists too. Never waits, never throws.
   */
  record(log: RequestLog, durationMs: number, owner?: RequestTenant): void;
  /** Queues a summarizer spend made apart from any request (background preparation). */
  spend(tenant: string, modelLabel: string, calls: number, tokens: number): void;
  /** Writes what is queued now and resolves once every queued write has settled. */
  idle(): Promise<void>;
  /** Lets the queued writes finish, for at most `graceMs`, then drops the rest. */
  close(graceMs?: number): Promise<void>;
}

// Writes in flight at once: each is a round trip or a few, so a handful keeps up with any request
// rate that one process serves while leaving the store's connection to the request path.
const CONCURRENCY = 4;
// Long enough to gather the events of many requests, short enough that a dashboard never notices.
export const FLUSH_MS = 50;
const BATCH_MAX = 100;
// An upstream's answer to a credential it does not take.
const REFUSED = new Set([401, 403]);

interface Write {
  /** Events it writes (a spend counts as one): what the queue bound counts. */
  size: number;
  run(): Promise<void>;
}

/** What a pass-through request's counts are grouped under: recap reads no model from its body. */
export const PASS_THROUGH_LABEL = '(pass-through)';
// A model no config entry matches is grouped under its own name once the upstream served it (a
// name the upstream knows: the labels stay few), else under `unconfigured`.
const NAME_LABEL_MAX_CHARS = 64;

function countsLabel(log: RequestLog, event: ConversationEvent): string {
  if (log.model === undefined) return PASS_THROUGH_LABEL;
  const served = log.upstreamStatus !== undefined && log.upstreamStatus >= 200 && log.upstreamStatus < 300;
  return event.model_label === 'unconfigured' && served && event.model !== '' ? headChars(event.model, NAME_LABEL_MAX_CHARS) : event.model_label;
}

export function createEventRecorder(opts: { config: EventsConfig; events: EventLog; metrics: Metrics; logger: Logger }): EventRecorder {
  const { config, events, metrics, logger } = opts;
  const pending: Write[] = [];
  let batch: RecordedEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running = 0;
  // Events in the batch, pending or being written.
  let held = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const settle = () => {
    if (running > 0 || pending.length > 0 || batch.length > 0) return;
    for (const resolve of idleWaiters) resolve();
    idleWaiters = [];
  };

  function pump(): void {
    while (running < CONCURRENCY && pending.length > 0) {
      const write = pending.shift()!;
      running++;
      write
        .run()
        .then(() => metrics.events.inc({ outcome: 'written' }, write.size))
        .catch((err: unknown) => {
          metrics.events.inc({ outcome: 'store_error' }, write.size);
          metrics.storeErrors.inc({ op: 'record_event' });
          if (!(err instanceof StoreUnavailableError)) logger.error({ err }, 'event not written');
        })
        .finally(() => {
          running--;
          held -= write.size;
          pump();
          settle();
        });
    }
  }

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    if (batch.length === 0) return;
    const written = batch;
    batch = [];
    pending.push({ size: written.length, run: () => events.recordAll(written) });
    pump();
  }

  /** Whether one more event fits the queue; counts the one that does not. */
  function admit(): boolean {
    if (closed) return false;
    if (held >= config.queue_max) {
      metrics.events.inc({ outcome: 'queue_full' });
      return false;
    }
    held++;
    return true;
  }

  const idle = (): Promise<void> => {
    flush();
    return running === 0 && pending.length === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
  };

  return {
    record(log, durationMs, owner) {
      const target = log.target;
      if (!config.enabled || (!target && !owner)) return;
      // A credential that only the upstream judges is a tenant once the upstream did not refuse it:
      // junk keys leave nothing behind, as they leave no records (route-plan.ts).
      if (!(target ?? owner)!.vouched && (log.upstreamStatus === undefined || REFUSED.has(log.upstreamStatus))) return;
      if (!admit()) return;
      const at = Date.now();
      const event = eventFromLog(log, target?.route ?? log.routeName ?? 'other', at, durationMs);
      const tenant = target ? target.key.tenant : owner!.tenant;
      if (target) {
        batch.push({ key: target.key, event, id: config.keep_ids ? target.id : null });
        if (batch.length >= BATCH_MAX) flush();
        else if (timer === undefined) {
          timer = setTimeout(flush, FLUSH_MS);
          // A batch waiting for its time never keeps the process alive: close() writes it.
          timer.unref();
        }
      } else {
        // No conversation: the overview's counts only.
        event.model_label = countsLabel(log, event);
        pending.push({ size: 1, run: () => events.addCounts(tenant, at, eventCounts(event)) });
        pump();
      }
      if ((event.status >= 400 || event.error !== undefined) && admit()) {
        const error = {
          at,
          status: event.status,
          code: event.error ?? null,
          model: event.model || event.model_label,
          route: String(event.route),
          tenant,
          conversation: target?.key.conversation ?? null,
        };
        pending.push({ size: 1, run: () => events.recordError(error) });
        pump();
      }
    },
    spend(tenant, modelLabel, calls, tokens) {
      if (!config.enabled || (calls === 0 && tokens === 0) || !admit()) return;
      const at = Date.now();
      pending.push({ size: 1, run: () => events.addCounts(tenant, at, spendCounts(modelLabel, calls, tokens)) });
      pump();
    },
    idle,
    async close(graceMs = 2_000) {
      const settled = idle();
      closed = true;
      let grace: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        grace = setTimeout(resolve, graceMs);
      });
      await Promise.race([settled, waited]);
      clearTimeout(grace);
      pending.length = 0;
    },
  };
}
