import { chatWire } from '../chat/items.js';
import type { ChatMessage } from '../messages/types.js';
import { viewTokens } from '../compaction/layout.js';
import { type PlanRules, pinnedTask, planCompaction, planDegrade } from '../compaction/plan.js';
import type { SummaryCodec } from '../compaction/summary-message.js';
import { acceptSummary } from '../compaction/validate-summary.js';
import { messageHash } from '../conversation/canonical.js';
import type { ConversationRecord } from '../store/store.js';
import { type Analysis, analyze, buildView } from './analyze.js';
import { baseView, candidates, chooseBase } from './choose-view.js';
import { describeCheckpoint } from './span-checkpoint.js';

// The decisions of the request path (decide.ts) without any I/O, for tests of the rules: analyze →
// choose the stored base → plan → clear, or accept the summary or degrade → the view. A token
// count stands in for the tokenizer, a given reply for the summarizer.

export interface PureInput {
  messages: ChatMessage[];
  /** Tokens of a message: the request's messages and the messages recap builds. */
  count: (m: ChatMessage) => number;
  budget: number;
  rules: PlanRules;
  codec: SummaryCodec;
  /** What the summarizer answers; null when it fails. */
  summary: string | null;
  /** A stored checkpoint covering this many messages after the pinned ones (moved to the next cut if it is not one). */
  checkpoint?: { covered: number; summary: string };
}

export interface PureOutcome {
  action: 'none' | 'reused' | 'compacted' | 'degraded';
  view: ChatMessage[];
  /** The messages the new summary takes in (compacted only). */
  evicted: ChatMessage[];
  /** Tokens of the view, priming included. */
  tokens: number;
  a: Analysis<ChatMessage>;
}

const PRIMING_TOKENS = 3;

export function compactWithoutIO(input: PureInput): PureOutcome {
  const { messages, count, budget, rules } = input;
  const a = analyze({
    items: messages,
    tokens: messages.map(count),
    hashes: messages.map(messageHash),
    primingTokens: PRIMING_TOKENS,
    countItem: count,
    wire: chatWire,
    codec: input.codec,
  });
  const { choice, fits } = chooseBase(candidates(a, storedRecord(a, input)), rules.trigger_ratio * budget);
  const base = choice.base;
  const unchanged = (): PureOutcome => ({
    action: base.checkpoint ? 'reused' : 'none',
    view: base.checkpoint ? buildView(a, base.summary, base) : messages,
    evicted: [],
    tokens: choice.tokens,
    a,
  });
  if (fits) return unchanged();
  const plan = planCompaction(a.layout, baseView(a, base), budget, rules);
  if (plan.kind === 'fits' || plan.kind === 'irreducible') return unchanged();
  const view = { covered: plan.covered, kept: plan.kept, cleared: new Set(plan.cleared) };
  if (plan.kind === 'clear')
    return { action: 'compacted', view: buildView(a, base.summary, view), evicted: [], tokens: viewTokens(a.layout, { ...view, summaryTokens: a.summaryTokens(base.summary) }), a };
  const evictedTokens = plan.evicted.reduce((n, i) => n + a.layout.tokens[i]!, 0);
  const text = input.summary;
  if (text !== null && acceptSummary(text, a.summaryTokens(base.summary) + evictedTokens, a.summaryTokens(text), rules.summary_max_tokens) === 'ok') {
    const tokens = viewTokens(a.layout, { ...view, summaryTokens: a.summaryTokens(text) });
    return { action: 'compacted', view: buildView(a, text, view), evicted: plan.evicted.map((i) => a.rest[i]!), tokens, a };
  }
  const drop = planDegrade(a.layout, baseView(a, base), budget, rules);
  const dropped = { covered: drop.covered, kept: drop.kept, cleared: new Set(drop.cleared) };
  return { action: 'degraded', view: buildView(a, base.summary, dropped), evicted: [], tokens: drop.tokens, a };
}

function storedRecord(a: Analysis<ChatMessage>, input: PureInput): ConversationRecord | null {
  const cp = input.checkpoint;
  if (!cp) return null;
  // The first cut at or after the requested coverage, the way a real compaction would have cut.
  const unit = a.seg.units.find((u) => u.start >= cp.covered && u.start > 0);
  if (!unit || unit.start >= a.rest.length) return null;
  const round = a.seg.rounds[unit.round]!;
  const head = round.head !== null && round.head < a.seg.units.indexOf(unit) ? [a.seg.units[round.head]!.start] : [];
  const instructions = input.rules.keepInstructions ? a.seg.kinds.flatMap((k, i) => (k === 'instruction' && i < unit.start ? [i] : [])) : [];
  const task = pinnedTask(a.layout, input.rules, input.budget).filter((i) => i < unit.start);
  const kept = [...new Set([...instructions, ...head, ...task])].sort((x, y) => x - y);
  const checkpoint = describeCheckpoint(a, { covered: unit.start, kept, cleared: [] }, cp.summary, 'test');
  return { version: 1, updatedAt: 0, checkpoints: [checkpoint] };
}
