import type { EventsConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { RequestLog } from '../observability/request-log.js';
import { spendCounts } from '../store/event-counts.js';
import type { EventLog } from '../store/event-log.js';
import { StoreUnavailableError } from '../store/store.js';
import { eventFromLog } from './event-from-log.js';

// Writes the events after their responses, off the request path: record() only queues, and the
// queue is bounded (past events.queue_max new events are dropped and counted), so a slow or
// unreachable store never delays, fails or piles up behind a response (DESIGN rule 8).

export interface EventRecorder {
  /** Queues the event of a finished request that belongs to a conversation (log.target); never waits, never throws. */
  record(log: RequestLog, durationMs: number): void;
  /** Queues a summarizer spend made apart from any request (background preparation). */
  spend(tenant: string, modelLabel: string, calls: number, tokens: number): void;
  /** Resolves once every queued write has settled. */
  idle(): Promise<void>;
  /** Lets the queued writes finish, for at most `graceMs`, then drops the rest. */
  close(graceMs?: number): Promise<void>;
}

// Writes in flight at once: each is a few store round trips, so a handful keeps up with any
// request rate that one process serves while leaving the store's connection to the request path.
const CONCURRENCY = 4;
// An upstream's answer to a credential it does not take.
const REFUSED = new Set([401, 403]);

export function createEventRecorder(opts: { config: EventsConfig; events: EventLog; metrics: Metrics; logger: Logger }): EventRecorder {
  const { config, events, metrics, logger } = opts;
  const pending: (() => Promise<void>)[] = [];
  let running = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const settle = () => {
    if (running > 0 || pending.length > 0) return;
    for (const resolve of idleWaiters) resolve();
    idleWaiters = [];
  };

  function pump(): void {
    while (running < CONCURRENCY && pending.length > 0) {
      const write = pending.shift()!;
      running++;
      write()
        .then(() => metrics.events.inc({ outcome: 'written' }))
        .catch((err: unknown) => {
          metrics.events.inc({ outcome: 'store_error' });
          metrics.storeErrors.inc({ op: 'record_event' });
          if (!(err instanceof StoreUnavailableError)) logger.error({ err }, 'event not written');
        })
        .finally(() => {
          running--;
          pump();
          settle();
        });
    }
  }

  const idle = (): Promise<void> => (running === 0 && pending.length === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve)));

  function enqueue(write: () => Promise<void>): void {
    if (closed) return;
    if (pending.length + running >= config.queue_max) {
      metrics.events.inc({ outcome: 'queue_full' });
      return;
    }
    pending.push(write);
    pump();
  }

  return {
    record(log, durationMs) {
      const target = log.target;
      if (!config.enabled || !target) return;
      // A credential that only the upstream judges is a tenant once the upstream did not refuse it:
      // junk keys leave nothing behind, as they leave no records (route-plan.ts).
      if (!target.vouched && (log.upstreamStatus === undefined || REFUSED.has(log.upstreamStatus))) return;
      const event = eventFromLog(log, target.route, Date.now(), durationMs);
      const id = config.keep_ids ? target.id : null;
      enqueue(() => events.record(target.key, event, id));
    },
    spend(tenant, modelLabel, calls, tokens) {
      if (!config.enabled || (calls === 0 && tokens === 0)) return;
      const at = Date.now();
      enqueue(() => events.addCounts(tenant, at, spendCounts(modelLabel, calls, tokens)));
    },
    idle,
    async close(graceMs = 2_000) {
      closed = true;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([idle(), grace]);
      clearTimeout(timer);
      pending.length = 0;
    },
  };
}
