import type { CompactionConfig } from '../config-schema.js';
import type { Round } from './rounds.js';
import { summaryReservation } from './validate-summary.js';

// Pure decisions on token counts: no messages, no I/O. The view is what would go upstream:
// pinned messages + the current summary (if any) + the messages no summary covers yet.

export interface RoundCost {
  messages: number;
  tokens: number;
}

export interface ViewCosts {
  pinnedTokens: number;
  /** The current summary message; 0 when there is none. */
  summaryTokens: number;
  /** The uncovered rounds, oldest first; the last one is the newest round, always kept. */
  rounds: readonly RoundCost[];
  /** Tokens OpenAI adds to every prompt to prime the reply. */
  primingTokens: number;
}

/** The leading uncovered rounds to take out of the view, and how many messages they hold. */
export interface Eviction {
  rounds: number;
  messages: number;
}

export type Plan =
  | { kind: 'fits'; viewTokens: number }
  | ({ kind: 'compact'; viewTokens: number } & Eviction)
  | { kind: 'irreducible'; viewTokens: number };

export type PlanRatios = Pick<CompactionConfig, 'trigger_ratio' | 'target_ratio' | 'summary_max_tokens'>;

export function roundCosts(rounds: readonly Round[], messageTokens: readonly number[]): RoundCost[] {
  return rounds.map((r) => {
    let tokens = 0;
    for (let i = r.start; i < r.end; i++) tokens += messageTokens[i] ?? 0;
    return { messages: r.end - r.start, tokens };
  });
}

export function viewTokens(view: ViewCosts): number {
  return view.pinnedTokens + view.summaryTokens + view.primingTokens + sum(view.rounds.map((r) => r.tokens));
}

/**
 * Compaction starts above trigger × budget and shrinks the view so that it lands at or under
 * target × budget once the new summary (at most summary_max_tokens) is in: the gap between the two
 * ratios is the hysteresis that lets the next turns fit without another summarizer call.
 */
export function planCompaction(view: ViewCosts, budget: number, ratios: PlanRatios): Plan {
  const total = viewTokens(view);
  if (total <= ratios.trigger_ratio * budget) return { kind: 'fits', viewTokens: total };
  // At least one round, or the "compaction" would only rewrite an oversized summary.
  const eviction = evictionForTarget(view, budget, ratios, 1);
  if (eviction.rounds === 0) return { kind: 'irreducible', viewTokens: total };
  return { kind: 'compact', viewTokens: total, ...eviction };
}

/**
 * The failure path (summarizer down, empty or oversized summary): drop the oldest rounds as a
 * projection, keeping pinned messages and the previous summary, until the view fits the whole
 * budget. The target is not used here: nothing replaces what is dropped, so keep all that fits.
 */
export function planDegrade(view: ViewCosts, budget: number): Eviction {
  const fixed = view.pinnedTokens + view.summaryTokens + view.primingTokens;
  return minimalEviction(view.rounds, fixed, budget, 0);
}

/**
 * Background pre-compaction: once the view passes prepare × budget, the eviction the next overflow
 * will need, so its checkpoint can be made off the request path. The conversation still grows by
 * about (trigger − prepare) × budget before the checkpoint is used, so it aims that much below the
 * target: when used, the view lands at the target, as after an inline compaction. Null when the
 * view is below the prepare line or nothing would be evicted.
 */
export function planPrepare(
  view: ViewCosts,
  budget: number,
  ratios: PlanRatios & Pick<CompactionConfig, 'prepare_ratio'>,
): Eviction | null {
  if (viewTokens(view) <= ratios.prepare_ratio * budget) return null;
  const growthBeforeUse = Math.max(0, ratios.trigger_ratio - ratios.prepare_ratio);
  const eviction = evictionForTarget(view, budget, { ...ratios, target_ratio: ratios.target_ratio - growthBeforeUse }, 0);
  return eviction.rounds === 0 ? null : eviction;
}

function evictionForTarget(view: ViewCosts, budget: number, ratios: PlanRatios, atLeast: number): Eviction {
  // Room for the largest summary message acceptSummary lets through, so the result stays in budget.
  const limit = ratios.target_ratio * budget - summaryReservation(ratios.summary_max_tokens);
  return minimalEviction(view.rounds, view.pinnedTokens + view.primingTokens, limit, atLeast);
}

/**
 * The fewest leading rounds (at least `atLeast`) whose removal brings fixed + the rest to `limit`
 * or under; when even keeping only the newest round is over, all rounds but the newest.
 */
function minimalEviction(rounds: readonly RoundCost[], fixed: number, limit: number, atLeast: number): Eviction {
  const evictable = Math.max(0, rounds.length - 1);
  let kept = sum(rounds.map((r) => r.tokens));
  let evicted: Eviction = { rounds: 0, messages: 0 };
  while (evicted.rounds < evictable && (evicted.rounds < atLeast || fixed + kept > limit)) {
    const next = rounds[evicted.rounds]!;
    kept -= next.tokens;
    evicted = { rounds: evicted.rounds + 1, messages: evicted.messages + next.messages };
  }
  return evicted;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
