import type { ChatMessage } from '../chat/types.js';
import { planCompaction, planDegrade, type PlanRatios } from '../compaction/plan.js';
import type { SummaryCodec } from '../compaction/summary-message.js';
import { acceptSummary } from '../compaction/validate-summary.js';
import { messageHash } from '../conversation/canonical.js';
import type { ConversationRecord } from '../store/store.js';
import { type Analysis, analyze, buildView, candidates, restTokensBetween } from './analyze.js';
import { chooseBase } from './choose-view.js';
import { costsOf, unchanged } from './compact-inline.js';

// The decisions of the request path (compaction-step.ts, compact-inline.ts) without any I/O, for
// tests of the rules: analyze → choose the stored base → plan → accept the summary or degrade →
// the view. A token count stands in for the tokenizer, a given reply for the summarizer.

export interface PureInput {
  messages: ChatMessage[];
  /** Tokens of a message: the request's messages and the summary messages recap builds. */
  count: (m: ChatMessage) => number;
  budget: number;
  ratios: PlanRatios;
  codec: SummaryCodec;
  /** What the summarizer answers; null when it fails. */
  summary: string | null;
  /** A stored checkpoint covering this many messages after the pinned ones. */
  checkpoint?: { covered: number; summary: string };
}

export interface PureOutcome {
  action: 'none' | 'reused' | 'compacted' | 'degraded';
  view: ChatMessage[];
  /** The messages the new summary replaces (compacted only). */
  evicted: ChatMessage[];
  a: Analysis;
}

const PRIMING_TOKENS = 3;

export function compactWithoutIO(input: PureInput): PureOutcome {
  const { messages, count, budget, ratios } = input;
  const a = analyze(messages, messages.map(count), messages.map(messageHash), PRIMING_TOKENS, count, input.codec);
  const { choice, fits } = chooseBase(candidates(a, storedRecord(a, input)), ratios.trigger_ratio * budget);
  const base = choice.base;
  const plan = fits ? null : planCompaction(costsOf(a, base), budget, ratios);
  if (plan?.kind !== 'compact') {
    const d = unchanged(a, base);
    return { action: d.action, view: d.view ?? messages, evicted: [], a };
  }
  const covered = base.covered + plan.messages;
  const replaced = a.summaryTokens(base.summary) + restTokensBetween(a, base.covered, covered);
  const text = input.summary;
  if (text !== null && acceptSummary(text, replaced, a.summaryTokens(text), ratios.summary_max_tokens) === 'ok') {
    return { action: 'compacted', view: buildView(a, text, covered), evicted: a.rest.slice(base.covered, covered), a };
  }
  const drop = planDegrade(costsOf(a, base), budget);
  return { action: 'degraded', view: buildView(a, base.summary, base.covered + drop.messages), evicted: [], a };
}

function storedRecord(a: Analysis, input: PureInput): ConversationRecord | null {
  const cp = input.checkpoint;
  if (!cp || cp.covered < 1 || cp.covered > a.rest.length) return null;
  const checkpoint = {
    covered: cp.covered,
    chainHash: a.links[cp.covered - 1]!,
    summary: cp.summary,
    summaryTokens: a.summaryTokens(cp.summary),
    coveredTokens: restTokensBetween(a, 0, cp.covered),
    model: 'test',
    createdAt: 0,
  };
  return { version: 1, updatedAt: 0, checkpoints: [checkpoint] };
}
