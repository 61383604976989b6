import type { ChatMessage } from '../src/chat/types.js';
import { SUMMARY_MARKER } from '../src/compaction/summary-message.js';
import { createTokenCounter } from '../src/tokens/counter.js';
import type { Drive } from './long-conversation-drive.js';
import { BUDGET, WAIT_THRESHOLD_MS } from './long-conversation-variants.js';

// Turns one variant's drive into figures, from what the fake upstream received (counted here with
// the tokenizer, not taken from recap's headers) and the client's send times.

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

export interface Distribution {
  count: number;
  p50: number | null;
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
  /** Turns recap held past the threshold for any reason (its own CPU, GC, a busy machine). */
  slowTurns: Distribution;
  /** recap's hold over every turn, and the client-to-upstream time the SDK sees (ms). */
  held: Distribution;
  overhead: Distribution;
  maxUpstreamTokens: number;
  /** recap's own x-recap-tokens-out at its largest, against the independent count above. */
  maxUpstreamTokensByRecap: number;
  budget: number;
  requestsOverBudget: number;
  cacheFriendlyTurns: number;
  cacheFriendlyShare: number;
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

function countPrompt(messages: readonly ChatMessage[]): number {
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
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? null };
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

export function measure(drive: Drive): Measured {
  if (drive.chatRequests.length !== drive.turns.length) {
    throw new Error(`the fake received ${drive.chatRequests.length} chat requests for ${drive.turns.length} turns`);
  }
  const points: TurnPoint[] = [];
  let previous: { serialized: string[]; summary: string | null } | null = null;
  drive.turns.forEach((turn, i) => {
    const request = drive.chatRequests[i]!;
    const forwarded = (request.json as { messages: ChatMessage[] }).messages;
    const serialized = forwarded.map((m) => JSON.stringify(m));
    const summary = summaryOf(forwarded);
    const heldMs = request.receivedAt - turn.recapReceivedAt;
    points.push({
      turn: i + 1,
      clientTokens: countPrompt(turn.messages as ChatMessage[]),
      forwardedTokens: countPrompt(forwarded),
      action: turn.action,
      overheadMs: request.receivedAt - turn.sentAt,
      heldMs,
      waitedOnSummarizer: heldMs > WAIT_THRESHOLD_MS && (turn.inlineSummarizerCalls > 0 || turn.compactionLockPolls > 0),
      summaryChanged: summary !== null && summary !== (previous?.summary ?? null),
      extendsPrevious: previous !== null && isPrefix(previous.serialized, serialized),
    });
    previous = { serialized, summary };
  });

  const first = points.find((p) => p.forwardedTokens < p.clientTokens)?.turn ?? null;
  const waited = points.filter((p) => p.waitedOnSummarizer);
  const slow = points.filter((p) => p.heldMs > WAIT_THRESHOLD_MS);
  const summarizerInputTokens = drive.summarizer.reduce((n, s) => n + counter.countMessages((s.request.json as { messages: ChatMessage[] }).messages).total, 0);
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
      slowTurns: distribution(slow.map((p) => p.heldMs)),
      held: distribution(points.map((p) => p.heldMs)),
      overhead: distribution(points.map((p) => p.overheadMs)),
      maxUpstreamTokens: Math.max(...points.map((p) => p.forwardedTokens)),
      maxUpstreamTokensByRecap: Math.max(...drive.turns.map((t) => t.tokensOutHeader)),
      budget: BUDGET,
      requestsOverBudget: points.filter((p) => p.forwardedTokens > BUDGET).length,
      cacheFriendlyTurns,
      // The first turn has no previous prompt to extend.
      cacheFriendlyShare: cacheFriendlyTurns / (points.length - 1),
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
