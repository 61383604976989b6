import type { ChatMessage } from '../src/messages/types.js';
import { defuse } from '../src/compaction/delimiters.js';
import { redact } from '../src/compaction/redact.js';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { createTokenCounter } from '../src/tokens/counter.js';
import type { ClientTurn, Drive } from './bench-recap.js';

// Turns one variant's drive into figures, from what the fake upstream received (counted here with
// the tokenizer, not taken from recap's headers), the client's send times and recap's counters.
// Shared by the long-conversation and agent-task benches.

export interface MeasureSetup {
  /** Tokens the messages of one request may use (docs/design.md rule 3). */
  budget: number;
  /** recap "held" a turn when more than this passed between its receipt and the upstream's. */
  waitThresholdMs: number;
  /** The fake's summarizer latency: a summarizer call answers this long after it arrived. */
  summarizerLatencyMs: number;
}

/** What the results files say a wait is. */
export const WAITS_DEFINITION =
  "held = the fake upstream's receipt of the request minus recap's server receipt of it; a summarizer wait is a request held " +
  'past the threshold whose request path called the summarizer (recap_summarizer_calls_total{mode="inline"} moved across it), or ' +
  'read the compaction lock table (recap_store_duration_seconds_count{op="read_locks"} moved) while a summarizer call answered ' +
  'during the hold (the compaction it waited for); slow requests are all requests held past the threshold, whatever the cause';

export interface TurnPoint {
  turn: number;
  clientTokens: number;
  forwardedTokens: number;
  action: string | null;
  /** ms from the client's send to the upstream's receipt of this turn. */
  overheadMs: number;
  /** ms from recap's receipt to the upstream's receipt: what recap held the request. */
  heldMs: number;
  /** Held past the threshold while its request path called the summarizer or waited for another's compaction. */
  waitedOnSummarizer: boolean;
  /** The forwarded summary differs from the previous turn's (a compaction took effect). */
  summaryChanged: boolean;
  /** The previous turn's forwarded messages are a prefix of this turn's (prompt-cache friendly). */
  extendsPrevious: boolean;
}

/** One summarizer call as the fake saw it, and what it was built on. */
export interface SummarizerCall {
  call: number;
  /** ms since the first turn was sent. */
  atMs: number;
  /** The turn recap was working on when the call went out (the last one it had received). */
  turn: number;
  /** inline: made while recap held that turn and the turn's request path made an inline call. */
  mode: 'inline' | 'background';
  /**
   * The call whose summary this one carried over as its previous summary (rule 5), null when it
   * had none, 'unmatched' when its previous summary is none of the calls' replies.
   */
  base: number | null | 'unmatched';
  inputTokens: number;
}

export interface Distribution {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

export interface VariantMeasures {
  turns: number;
  summarizerCalls: number;
  summarizerCallsByMode: Record<string, number>;
  backgroundJobs: Record<string, number>;
  actions: Record<string, number>;
  /** The first turn that forwarded less than the client sent; null when none did. */
  firstCompactionTurn: number | null;
  /** Turns recap held past the threshold on a summarizer (inline call or compaction lock), and for how long (ms). */
  summarizerWaits: Distribution;
  summarizerWaitsAfterFirstCompaction: Distribution;
  /** Which turns waited, for how long, and whether their own request path called the summarizer. */
  waitedTurns: { turn: number; heldMs: number; inline: boolean }[];
  /** Turns recap held past the threshold for any reason (its own CPU, GC, a busy machine). */
  slowTurns: Distribution;
  /** recap's hold over every turn, and the client-to-upstream time the SDK sees (ms). */
  held: Distribution;
  overhead: Distribution;
  /** recap's own time per request (ms): its request log's total minus the upstream's time to the reply's headers. */
  recapOwn: Distribution;
  /** The part of it before the request went upstream (reading, counting, planning, rewriting): the request log's forwardedMs. */
  recapBeforeForward: Distribution;
  /** recap's cache of seen items at the end of the run. */
  seenItems: Drive['seenItems'];
  maxUpstreamTokens: number;
  /** recap's own x-recap-tokens-out at its largest, against the independent count above. */
  maxUpstreamTokensByRecap: number;
  budget: number;
  /** x-recap-budget as recap worked it out (the same on every turn when the setup is right). */
  budgetsByRecap: number[];
  requestsOverBudget: number;
  cacheFriendlyTurns: number;
  cacheFriendlyShare: number;
  /** Summarizer calls whose previous summary another call had already been built on (duplicates, rule 9). */
  callsSharingABase: number;
  /** Calls after the first that did not carry the previous call's summary over. */
  callsNotOnThePrevious: number;
  calls: SummarizerCall[];
  cost: { upstreamPromptTokens: number; summarizerInputTokens: number; summarizerOutputTokens: number; total: number };
  /** What the client would have sent upstream without recap, for scale. */
  clientPromptTokens: number;
  wallSeconds: number;
}

export interface Measured {
  measures: VariantMeasures;
  points: TurnPoint[];
}

const counter = createTokenCounter({ encoding: 'o200k_base' });
const PRIMING = counter.countMessages([]).total;
// The same messages come back every turn: tokenize each distinct one once.
const memo = new Map<string, number>();

export function countPrompt(messages: readonly ChatMessage[]): number {
  let total = PRIMING;
  for (const m of messages) {
    const key = JSON.stringify(m);
    let tokens = memo.get(key);
    if (tokens === undefined) {
      tokens = counter.countMessage(m);
      memo.set(key, tokens);
    }
    total += tokens;
  }
  return total;
}

function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : null);
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) ?? null };
}

function summaryOf(messages: readonly ChatMessage[]): string | null {
  const found = messages.find((m) => m.role === 'system' && typeof m.content === 'string' && m.content.startsWith(SUMMARY_MARKER));
  return (found?.content as string | undefined) ?? null;
}

function isPrefix(prefix: readonly string[], whole: readonly string[]): boolean {
  return prefix.length <= whole.length && prefix.every((m, i) => m === whole[i]);
}

function tally(values: readonly (string | null)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}

function lastUserText(messages: readonly ChatMessage[]): string {
  const user = [...messages].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

/** The previous summary a summarizer call carried (prompt.ts wraps it in <previous_summary>), or null. */
function previousSummaryOf(messages: readonly ChatMessage[]): string | null {
  const found = /<previous_summary>\n([\s\S]*?)\n<\/previous_summary>/.exec(lastUserText(messages));
  return found ? found[1]! : null;
}

/** The turn being worked on at `at`: the last one recap had received by then (index), or -1. */
function turnAt(turns: readonly ClientTurn[], at: number): number {
  let found = -1;
  for (let i = 0; i < turns.length && turns[i]!.recapReceivedAt <= at; i++) found = i;
  return found;
}

function summarizerCalls(drive: Drive, startedAt: number, held: (turn: number, at: number) => boolean): SummarizerCall[] {
  // A previous summary reaches the summarizer trimmed, redacted and defused (prompt.ts), and with
  // the identifier ledger recap appended after the summarizer's reply (ledger.ts): it starts with
  // the reply of the call that made it.
  const asCarried = drive.summarizer.map((s) => defuse(redact(s.reply.trim())));
  return drive.summarizer.map((s, i) => {
    const messages = (s.request.json as { messages: ChatMessage[] }).messages;
    const previous = previousSummaryOf(messages);
    let base: SummarizerCall['base'] = null;
    if (previous !== null) {
      let j = -1;
      for (let k = 0; k < i; k++) if (previous.startsWith(asCarried[k]!) && (j === -1 || asCarried[k]!.length >= asCarried[j]!.length)) j = k;
      base = j === -1 ? 'unmatched' : j + 1;
    }
    const turn = turnAt(drive.turns, s.request.receivedAt);
    const inline = turn >= 0 && drive.turns[turn]!.inlineSummarizerCalls > 0 && held(turn, s.request.receivedAt);
    return {
      call: i + 1,
      atMs: s.request.receivedAt - startedAt,
      turn: turn + 1,
      mode: inline ? 'inline' : 'background',
      base,
      inputTokens: counter.countMessages(messages).total,
    };
  });
}

export function measure(drive: Drive, setup: MeasureSetup): Measured {
  if (drive.chatRequests.length !== drive.turns.length) {
    throw new Error(`the fake received ${drive.chatRequests.length} chat requests for ${drive.turns.length} turns`);
  }
  const upstreamAt = (turn: number) => drive.chatRequests[turn]!.receivedAt;
  const heldAt = (turn: number, at: number) => at >= drive.turns[turn]!.recapReceivedAt && at <= upstreamAt(turn);
  // A turn waiting for another's compaction polls the lock table, and the summarizer call it waits
  // for answers while recap holds the turn (a background job's own read of the table does not).
  const releasedBySummarizer = (turn: number) => drive.summarizer.some((s) => heldAt(turn, s.request.receivedAt + setup.summarizerLatencyMs));
  const points: TurnPoint[] = [];
  let previous: { serialized: string[]; summary: string | null } | null = null;
  drive.turns.forEach((turn, i) => {
    const forwarded = (drive.chatRequests[i]!.json as { messages: ChatMessage[] }).messages;
    const serialized = forwarded.map((m) => JSON.stringify(m));
    const summary = summaryOf(forwarded);
    const heldMs = upstreamAt(i) - turn.recapReceivedAt;
    const waited = turn.inlineSummarizerCalls > 0 || (turn.lockReads > 0 && releasedBySummarizer(i));
    points.push({
      turn: i + 1,
      clientTokens: countPrompt(turn.messages as ChatMessage[]),
      forwardedTokens: countPrompt(forwarded),
      action: turn.action,
      overheadMs: upstreamAt(i) - turn.sentAt,
      heldMs,
      waitedOnSummarizer: heldMs > setup.waitThresholdMs && waited,
      summaryChanged: summary !== null && summary !== (previous?.summary ?? null),
      extendsPrevious: previous !== null && isPrefix(previous.serialized, serialized),
    });
    previous = { serialized, summary };
  });

  const first = points.find((p) => p.forwardedTokens < p.clientTokens)?.turn ?? null;
  const waited = points.filter((p) => p.waitedOnSummarizer);
  const slow = points.filter((p) => p.heldMs > setup.waitThresholdMs);
  const calls = summarizerCalls(drive, drive.turns[0]?.sentAt ?? 0, heldAt);
  const bases = calls.map((c) => c.base).filter((b) => b !== 'unmatched');
  const summarizerInputTokens = calls.reduce((n, c) => n + c.inputTokens, 0);
  const summarizerOutputTokens = drive.summarizer.reduce((n, s) => n + counter.countText(s.reply), 0);
  const upstreamPromptTokens = points.reduce((n, p) => n + p.forwardedTokens, 0);
  const cacheFriendlyTurns = points.filter((p) => p.extendsPrevious).length;
  return {
    points,
    measures: {
      turns: points.length,
      summarizerCalls: drive.summarizer.length,
      summarizerCallsByMode: drive.summarizerCallsByMode,
      backgroundJobs: drive.backgroundJobs,
      actions: tally(points.map((p) => p.action)),
      firstCompactionTurn: first,
      summarizerWaits: distribution(waited.map((p) => p.heldMs)),
      summarizerWaitsAfterFirstCompaction: distribution(waited.filter((p) => first !== null && p.turn > first).map((p) => p.heldMs)),
      waitedTurns: waited.map((p) => ({ turn: p.turn, heldMs: p.heldMs, inline: drive.turns[p.turn - 1]!.inlineSummarizerCalls > 0 })),
      slowTurns: distribution(slow.map((p) => p.heldMs)),
      held: distribution(points.map((p) => p.heldMs)),
      overhead: distribution(points.map((p) => p.overheadMs)),
      recapOwn: distribution(drive.recapOwnMs),
      recapBeforeForward: distribution(drive.recapBeforeForwardMs),
      seenItems: drive.seenItems,
      maxUpstreamTokens: Math.max(...points.map((p) => p.forwardedTokens)),
      maxUpstreamTokensByRecap: Math.max(...drive.turns.map((t) => t.tokensOutHeader)),
      budget: setup.budget,
      budgetsByRecap: [...new Set(drive.turns.map((t) => t.budgetHeader))],
      requestsOverBudget: points.filter((p) => p.forwardedTokens > setup.budget).length,
      cacheFriendlyTurns,
      // The first turn has no previous prompt to extend.
      cacheFriendlyShare: cacheFriendlyTurns / (points.length - 1),
      callsSharingABase: bases.length - new Set(bases).size,
      callsNotOnThePrevious: calls.filter((c, i) => i > 0 && c.base !== i).length,
      calls,
      cost: {
        upstreamPromptTokens,
        summarizerInputTokens,
        summarizerOutputTokens,
        total: upstreamPromptTokens + summarizerInputTokens + summarizerOutputTokens,
      },
      clientPromptTokens: points.reduce((n, p) => n + p.clientTokens, 0),
      wallSeconds: Math.round(drive.wallMs / 100) / 10,
    },
  };
}
