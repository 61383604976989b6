import { type Round, type Segmentation, pinnedMessages, segment } from '../compaction/rounds.js';
import type { SummaryCodec } from '../compaction/summary-message.js';
import type { ChatMessage } from '../chat/types.js';
import { hashChain } from '../conversation/canonical.js';
import type { ConversationRecord } from '../store/store.js';
import { type Base, type CandidateCosts, matchingCheckpoints, relativeRoundStarts } from './choose-view.js';

// A request taken apart for compaction: pinned messages, the rest with their token counts and
// hash-chain links, and the cost of the view built on each possible base (rule 2, rule 6).

export interface Analysis {
  messages: readonly ChatMessage[];
  seg: Segmentation;
  pinned: ChatMessage[];
  pinnedTokens: number;
  /** Messages after the pinned block. */
  rest: readonly ChatMessage[];
  /** Token counts of every message of the request, aligned with `messages`. */
  perMessage: readonly number[];
  /** Token counts of `rest`, aligned with it. */
  restTokens: number[];
  /** Hash-chain links of `rest`; computed on first use (a request far below its budget never needs them). */
  readonly links: string[];
  primingTokens: number;
  /** recap's own summary, sent back by the client inside its pinned block, if any. */
  clientSummary: string | null;
  summaryTokens: (text: string | null) => number;
  /** Builds and recognises this tenant's summary messages. */
  codec: SummaryCodec;
}

export function analyze(
  messages: readonly ChatMessage[],
  perMessage: readonly number[],
  hashes: readonly string[],
  primingTokens: number,
  countMessage: (m: ChatMessage) => number,
  codec: SummaryCodec,
): Analysis {
  const seg = segment(messages, (m) => codec.summaryTextOf(m) !== null);
  const pinned = pinnedMessages(messages, seg);
  let pinnedTokens = 0;
  for (let i = 0; i < seg.pinnedCount; i++) if (i !== seg.summaryIndex) pinnedTokens += perMessage[i]!;
  const rest = messages.slice(seg.pinnedCount);
  let links: string[] | undefined;
  return {
    messages,
    seg,
    pinned,
    pinnedTokens,
    rest,
    perMessage,
    restTokens: perMessage.slice(seg.pinnedCount),
    get links() {
      links ??= hashChain(hashes.slice(seg.pinnedCount));
      return links;
    },
    primingTokens,
    clientSummary: seg.summaryIndex === null ? null : codec.summaryTextOf(messages[seg.summaryIndex]!),
    summaryTokens: (text) => (text ? countMessage(codec.build(text)) : 0),
    codec,
  };
}

/** Tokens of the messages after the pinned ones from index `from` up to (not including) `to`. */
export function restTokensBetween(a: Analysis, from: number, to = a.restTokens.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += a.restTokens[i]!;
  return sum;
}

export function viewCost(a: Analysis, base: Base): number {
  return a.pinnedTokens + a.summaryTokens(base.summary) + restTokensBetween(a, base.covered) + a.primingTokens;
}

export function noSummaryBase(a: Analysis): Base {
  return { covered: 0, summary: a.clientSummary, checkpoint: null };
}

/** "No stored summary" first, then every matching checkpoint, least covered first. */
export function candidates(a: Analysis, record: ConversationRecord | null): CandidateCosts[] {
  const starts = relativeRoundStarts(a.seg.rounds, a.seg.pinnedCount);
  const bases: Base[] = [
    noSummaryBase(a),
    ...matchingCheckpoints(record, a.links, starts).map((cp) => ({ covered: cp.covered, summary: cp.summary || a.clientSummary, checkpoint: cp })),
  ];
  return bases.map((base) => ({ base, tokens: viewCost(a, base) }));
}

/** Rounds not covered by `base`, with absolute message indices. */
export function uncoveredRounds(a: Analysis, base: Base): Round[] {
  const from = a.seg.pinnedCount + base.covered;
  return a.seg.rounds.filter((r) => r.start >= from);
}

/** What goes upstream: pinned, then the summary (if any), then the uncovered messages from `covered`. */
export function buildView(a: Analysis, summary: string | null, covered: number): ChatMessage[] {
  const view = [...a.pinned];
  if (summary) view.push(a.codec.build(summary));
  for (let i = covered; i < a.rest.length; i++) view.push(a.rest[i]!);
  return view;
}
