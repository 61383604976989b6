import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { RequestLog } from '../observability/request-log.js';
import { answerRecall } from './answer.js';
import type { RecallSession } from './session.js';
import { sumUsage } from './usage.js';
import type { RecallWire, ReplyCalls } from './wire.js';

// One reply's recalls, hop by hop, whatever the wire format and whether it streams: each reply that
// calls recap_recall gets its calls answered from the request's own left-out content (rule 13),
// and the continuation carries the assistant's calls and their results after the same view. The
// continuation's prompt grows by those, so each result is bounded by what the budget has left.

export interface RecallDeps {
  metrics: Metrics;
  logger: Logger;
}

const LAST_HOP_NOTE = '\n[This was the last recall for this reply: answer from what you have.]';

export interface RecallTurn<T> {
  /** Continuations sent so far. */
  readonly hops: number;
  /** Calls answered so far. */
  readonly answered: number;
  /** Whether another continuation may be sent. */
  mayContinue(): boolean;
  /** The items of the next continuation: the view and everything answered so far, now `reply`'s calls too. */
  continueWith(reply: ReplyCalls<T>, usage: unknown): T[];
  /** Usage of the hops before, plus that of the final reply. */
  usageWith(final: unknown): unknown;
  /** Records the turn's hops (metrics, log); once. */
  finish(): void;
}

export function recallTurn<T, P>(session: RecallSession<T>, wire: RecallWire<T, P>, view: readonly T[], deps: RecallDeps, log: RequestLog): RecallTurn<T> {
  const items = [...view];
  let hops = 0;
  let answered = 0;
  let used = 0;
  let usage: unknown;
  return {
    get hops() {
      return hops;
    },
    get answered() {
      return answered;
    },
    mayContinue: () => hops < session.maxHops,
    continueWith(reply, replyUsage) {
      hops++;
      usage = sumUsage(usage, replyUsage);
      for (const item of reply.assistant) {
        items.push(item);
        used += session.countItem(item);
      }
      const last = hops === session.maxHops;
      const overhead = session.countItem(wire.resultItem(reply.calls[0]?.id ?? '', '')) + (last ? session.countText(LAST_HOP_NOTE) : 0);
      for (const [i, call] of reply.calls.entries()) {
        const share = Math.floor((session.room - used) / (reply.calls.length - i)) - overhead;
        const answer = answerRecall(call.arguments, session.passages(), { maxTokens: Math.min(session.maxResultTokens, share), count: session.countText });
        const result = wire.resultItem(call.id, last ? answer.text + LAST_HOP_NOTE : answer.text);
        items.push(result);
        used += session.countItem(result);
        answered++;
        deps.metrics.recalls.inc({ model: session.modelLabel, outcome: answer.outcome });
        deps.logger.info(
          { conversation: log.conversation, hop: hops, outcome: answer.outcome, resultTokens: session.countItem(result), droppedCalls: i === 0 ? reply.dropped : 0 },
          'recap_recall answered',
        );
      }
      log.recalls = answered;
      return [...items];
    },
    usageWith: (final) => (hops === 0 ? final : sumUsage(usage, final)),
    finish() {
      if (hops > 0) deps.metrics.recallHops.observe({ model: session.modelLabel }, hops);
    },
  };
}
