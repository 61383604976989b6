import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { answerRecall } from './answer.js';
import { fitTokens } from './fit.js';
import type { RecallSession } from './session.js';
import { RECALL_TOOL_NAME } from './tool.js';
import { sumUsage } from './usage.js';
import type { RecallWire, ReplyCalls } from './wire.js';

// One reply's recalls, hop by hop, whatever the wire format and whether it streams: each reply that
// calls recap_recall gets its calls answered from the request's own left-out content (rule 13),
// and the continuation carries the assistant's calls and their results after the same view. The
// continuation's prompt grows by those, and it always stays within the budget: a reply answers at
// most MAX_CALLS_ANSWERED calls, as many as the room left has space for; the calls past that leave
// the continuation and share one short answer (a note on the last answered call's result); each
// result is bounded by its share of the room and by max_result_tokens, notes included. One log
// line per reply, with the counts.

export interface RecallDeps {
  metrics: Metrics;
  logger: Logger;
}

const LAST_HOP_NOTE = '\n[This was the last recall for this reply: answer from what you have.]';
/** Calls of one reply answered at most: the work a reply costs is bounded whatever it asks. */
export const MAX_CALLS_ANSWERED = 16;
/** The least a call's result may take and still say something (the answer that there is no room). */
const MIN_RESULT = `${RECALL_TOOL_NAME}: this request has no room left for recalled content; answer from what you have.`;

const unansweredNote = (n: number) =>
  `\n[${n} more ${RECALL_TOOL_NAME} call${n === 1 ? ' was' : 's were'} in this reply and not answered: the request has room for fewer; call it again with one precise query.]`;

export interface RecallTurn<T> {
  /** Continuations sent so far. */
  readonly hops: number;
  /** Calls answered so far. */
  readonly answered: number;
  /** Whether another continuation may be sent. */
  mayContinue(): boolean;
  /**
   * The items of the next continuation: the view and everything answered so far, now `reply`'s
   * calls too (those that fit); null when not even one call and its answer fit the room left (the
   * reply then ends as at the hop bound).
   */
  continueWith(reply: ReplyCalls<T>, usage: unknown): T[] | null;
  /** Usage of the hops before, plus that of the final reply. */
  usageWith(final: unknown): unknown;
  /** Records the turn's hops (metrics, log); once. */
  finish(): void;
}

export function recallTurn<T, P>(session: RecallSession<T>, wire: RecallWire<T, P>, view: readonly T[], deps: RecallDeps, conversation: string | undefined): RecallTurn<T> {
  const items = [...view];
  let hops = 0;
  let answered = 0;
  let used = 0;
  let usage: unknown;
  const tokensOf = (list: readonly T[]) => list.reduce((n, item) => n + session.countItem(item), 0);
  return {
    get hops() {
      return hops;
    },
    get answered() {
      return answered;
    },
    mayContinue: () => hops < session.maxHops,
    continueWith(reply, replyUsage) {
      const last = hops + 1 === session.maxHops;
      const left = session.room - used;
      const calls = reply.calls;
      // The most calls whose place in the assistant's output and a shortest answer each fit the room left.
      const shortest = session.countItem(wire.resultItem(calls[0]?.id ?? '', MIN_RESULT + (last ? LAST_HOP_NOTE : '') + unansweredNote(calls.length)));
      let n = Math.min(calls.length, MAX_CALLS_ANSWERED);
      let assistant = reply.assistantWith(n);
      let assistantTokens = tokensOf(assistant);
      while (n > 0 && assistantTokens + n * shortest > left) {
        n--;
        assistant = reply.assistantWith(n);
        assistantTokens = tokensOf(assistant);
      }
      if (n === 0) {
        deps.logger.info({ conversation, hop: hops + 1, calls: calls.length, answered: 0, room: left }, 'recap_recall not answered: no room left in the budget');
        deps.metrics.recalls.inc({ model: session.modelLabel, outcome: 'unanswered' }, calls.length);
        return null;
      }
      hops++;
      usage = sumUsage(usage, replyUsage);
      items.push(...assistant);
      used += assistantTokens;
      const unanswered = calls.length - n;
      const outcomes: Record<string, number> = {};
      let resultTokens = 0;
      for (let i = 0; i < n; i++) {
        const call = calls[i]!;
        const notes = (last ? LAST_HOP_NOTE : '') + (i === n - 1 && unanswered > 0 ? unansweredNote(unanswered) : '');
        // Each call's share of what is left, less its item's framing; notes count inside max_result_tokens.
        const framing = session.countItem(wire.resultItem(call.id, ''));
        const share = Math.floor((session.room - used) / (n - i)) - framing;
        const limit = Math.min(session.maxResultTokens, share) - session.countText(notes);
        const answer = answerRecall(call.arguments, session.passages(), { maxTokens: limit, count: session.countText });
        for (const index of answer.shown ?? []) session.recalled.add(index);
        // Whatever the answer (a problem with the arguments, no room), it is cut to its bound.
        const text = session.countText(answer.text) <= limit ? answer.text : fitTokens(answer.text, limit, session.countText);
        const result = wire.resultItem(call.id, text + notes);
        items.push(result);
        const tokens = session.countItem(result);
        used += tokens;
        resultTokens += tokens;
        answered++;
        outcomes[answer.outcome] = (outcomes[answer.outcome] ?? 0) + 1;
        deps.metrics.recalls.inc({ model: session.modelLabel, outcome: answer.outcome });
      }
      if (unanswered > 0) deps.metrics.recalls.inc({ model: session.modelLabel, outcome: 'unanswered' }, unanswered);
      deps.logger.info({ conversation, hop: hops, calls: calls.length, answered: n, unanswered, outcomes, resultTokens, droppedCalls: reply.dropped }, 'recap_recall answered');
      return [...items];
    },
    usageWith: (final) => (hops === 0 ? final : sumUsage(usage, final)),
    finish() {
      if (hops > 0) deps.metrics.recallHops.observe({ model: session.modelLabel }, hops);
    },
  };
}
