import type { Layout } from './layout.js';

// Planning by cost (docs/design.md rule 14): pure arithmetic on token counts and prices, no I/O.
//
// Providers cache prompt prefixes, so sending the whole growing history costs, per call, the
// cached price on what was sent before plus the input (or write) price on what is new. A
// compaction changes the prompt from its first changed byte (right after the pinned block, where
// the summary sits): that call re-reads the new view uncached, and the summarizer is paid for.
// From then on every call sends H = view − view-after-the-cut fewer tokens, each of which would
// have been read from the cache.
//
//   saves  = N × H × cached              N: calls expected before the next compaction
//   costs  = (write − cached) × (V − U) + summarizer
//            V: the view after the cut, U: its prefix that stays cached (the pinned block)
//
// N is the smaller of the calls the window leaves before the view must be cut again
// ((window − V) / growth) and the calls the conversation will still make with a chance of nine in
// ten: a conversation that has run n calls runs n/9 more about that often (PAYBACK_ODDS). A
// cut that is not forced must pay back that surely: one that does not pay back is money lost.
// A conversation's first cut risks money it has not saved yet (sending everything would have cost
// no more), so it counts only the call in hand: it is made when it pays back on that call, or when
// the window forces it. Later cuts may risk what the earlier ones saved.
// A compaction happens only when saves ≥ costs, or when the view would not fit the window.
//
// When to cut: the view grows by g tokens a call. Kept at V after a cut, it costs cached × (V + g·t)
// t calls later. Cutting every k calls costs F (the fixed part of `costs`) once per k calls and
// cached × g × k / 2 a call on average above V; the average is least at k* = √(2F / (cached × g)),
// that is when the view has grown H* = √(2 F g / cached) above V (the economic-order-quantity
// rule: cut when what the growth since the last cut has cost in cached reads equals one cut).
// Cheap caching (small cached, large write − cached) makes F large and cached small: cut less
// often. How deep: a smaller V costs less both to re-read and to keep, at every price, so a
// cost-planned cut goes to the smallest view the model allows (`view_ratio` of the budget, a bound
// on quality, not on money) and the prices decide how often.

/** Prices per token (pricing/prices.ts works them out from the config's prices per million). */
export interface Prices {
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
}

export interface CostModel {
  /** The conversation's model. */
  prices: Prices;
  /** The summarizer's model; null when a cut calls no model (clearing, template, window). */
  summarizer: Prices | null;
  /** The summarizer rides the conversation's own cached prefix (its own model, the prefix recap last sent). */
  sharedPrefix: boolean;
}

export interface CompactionWeighing {
  /** Tokens of the view without this compaction (X) and after it (V). */
  view: number;
  after: number;
  /** Of the new view, the leading tokens the previous request had too: still cached. */
  unchanged: number;
  /** Tokens the summarizer reads apart from the conversation (the evicted span and the previous summary); 0 for a clearing. */
  evicted: number;
  /** Tokens the summarizer writes. */
  summaryTokens: number;
  /** The view must be at or under this many tokens (the trigger line of the window). */
  window: number;
  /** Tokens a call adds to the view, on average. */
  growth: number;
  /** Calls the conversation has made so far, this one included. */
  calls: number;
  /** The conversation's first cut (nothing of it is stored yet): counted over the call in hand only. */
  first: boolean;
}

export type Verdict = 'pays' | 'does_not_pay' | 'window';

export interface CompactionFigures {
  saves: number;
  costs: number;
  /** Calls `saves` is counted over. */
  calls: number;
  verdict: Verdict;
}

/** The instructions around a summarizer call's transcript (prompt.ts), roughly. */
export const SUMMARIZER_OVERHEAD_TOKENS = 300;

/**
 * What a summarizer call costs that reads `evicted` tokens (the span and the previous summary) on
 * a separate model; sharing the conversation's prefix, it reads `prefix` tokens instead (the
 * pinned block, the previous summary and the span, as the previous request sent them) from the
 * provider's cache, and only its instruction is new.
 */
export function summarizerCost(m: CostModel, prefix: number, evicted: number, summaryTokens: number): number {
  if (!m.summarizer) return 0;
  if (m.sharedPrefix) return prefix * m.prices.cachedInput + SUMMARIZER_OVERHEAD_TOKENS * m.prices.input + summaryTokens * m.prices.output;
  return (evicted + SUMMARIZER_OVERHEAD_TOKENS) * m.summarizer.input + summaryTokens * m.summarizer.output;
}

/**
 * How sure a cut must be to pay back. A conversation that has run n calls runs on to n + r calls
 * with a chance of about n / (n + r) (the lengths of conversations are heavy-tailed, Lindy-like):
 * counting the saving over r = n / 9 calls, a cut pays back with a chance of nine in ten.
 */
export const PAYBACK_ODDS = 9;

/** The calls a compaction to `after` is expected to serve before the next one (the call in hand alone for a first cut). */
export function expectedCalls(w: Pick<CompactionWeighing, 'after' | 'window' | 'growth' | 'calls' | 'first'>): number {
  if (w.first) return 1;
  const room = w.growth > 0 ? (w.window - w.after) / w.growth : Number.POSITIVE_INFINITY;
  const ahead = w.calls / PAYBACK_ODDS;
  return Math.max(1, Math.floor(Math.min(ahead, room)));
}

/** Whether this compaction pays for itself, with its figures. */
export function weighCompaction(m: CostModel, w: CompactionWeighing): CompactionFigures {
  const calls = expectedCalls(w);
  const saves = calls * Math.max(0, w.view - w.after) * m.prices.cachedInput;
  const reread = Math.max(0, m.prices.cacheWrite - m.prices.cachedInput) * Math.max(0, w.after - w.unchanged);
  // Sharing the prefix, the summarizer reads what stays cached of the view and the span after it.
  const costs = reread + summarizerCost(m, w.unchanged + w.evicted, w.evicted, w.summaryTokens);
  const verdict: Verdict = w.view > w.window ? 'window' : saves >= costs ? 'pays' : 'does_not_pay';
  return { saves, costs, calls, verdict };
}

export interface LinesInput {
  /** The view must be at or under this many tokens (trigger × budget). */
  window: number;
  /** The smallest view a cut aims at (view_ratio × budget), and the largest (target × budget). */
  floor: number;
  target: number;
  /** The pinned block: stays cached through a cut. */
  stable: number;
  /** The summary's expected size (its reservation). */
  summaryTokens: number;
  growth: number;
  calls: number;
  /** The conversation has no cut stored yet: its first must pay back on the call in hand. */
  first: boolean;
  /** Cuts are at least this many tokens apart. */
  minGap: number;
}

/** Where a cost-planned conversation is cut (trigger) and to what (target), in tokens. */
export interface CostLines {
  trigger: number;
  target: number;
}

/**
 * The lines for this conversation at these prices. The target is the floor; the trigger is the
 * target plus the larger of the optimal growth between cuts (H*), the growth from which a cut pays
 * back within the expected calls, and `minGap`; never above the window.
 */
export function costLines(m: CostModel, i: LinesInput): CostLines {
  const target = Math.min(i.floor, i.target);
  const g = Math.max(1, i.growth);
  const cached = m.prices.cachedInput;
  // The cut's cost that does not grow with what it evicts: the re-read, and the summarizer's call
  // apart from the evicted span (instructions, previous summary, its reply; sharing the prefix:
  // the pinned block and the previous summary, read from the cache).
  const reread = Math.max(0, m.prices.cacheWrite - cached) * Math.max(0, target + i.summaryTokens - i.stable);
  const fixed = reread + summarizerCost(m, m.sharedPrefix ? i.stable + i.summaryTokens : 0, i.summaryTokens, i.summaryTokens);
  // What the summarizer pays per evicted token (sharing the prefix: its cached read).
  const perEvicted = !m.summarizer ? 0 : m.sharedPrefix ? cached : m.summarizer.input;
  const optimal = cached > 0 ? Math.sqrt((2 * fixed * g) / cached) : Number.POSITIVE_INFINITY;
  const calls = expectedCalls({ after: target, window: i.window, growth: g, calls: i.calls, first: i.first });
  const margin = calls * cached - perEvicted;
  const payback = margin > 0 ? fixed / margin : Number.POSITIVE_INFINITY;
  const trigger = Math.min(i.window, target + Math.max(optimal, payback, i.minGap));
  return { trigger, target };
}

/** How a conversation has grown: tokens per call and calls so far, from the request itself. */
export function conversationGrowth(l: Layout): { growth: number; calls: number } {
  let total = 0;
  for (const t of l.tokens) total += t;
  const steps = l.seg.units.filter((u) => u.kind === 'step').length;
  return { growth: total / (steps + 1), calls: steps + 1 };
}

/** Tokens of the client's newest turn: its last assistant turn and what follows (the whole prompt when there is none). */
export function newestTurnTokens(l: Layout): number {
  let start = l.seg.kinds.lastIndexOf('assistant');
  let tokens = 0;
  if (start < 0) [start, tokens] = [0, l.fixedTokens];
  // The whole assistant turn (a reasoning item before a call, say).
  while (start > 0 && l.seg.kinds[start - 1] === 'assistant') start--;
  for (let i = start; i < l.tokens.length; i++) tokens += l.tokens[i]!;
  return tokens;
}
