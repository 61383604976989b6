import { type CompactionFigures, type CostLines, type CostModel, conversationGrowth, costLines, weighCompaction } from '../compaction/cost.js';
import type { Cut } from '../compaction/plan.js';
import type { CompactionConfig, ModelConfig } from '../config/schema.js';
import type { ConversationRecord } from '../store/store.js';
import { modelPrices, summarizerPrices } from '../pricing/model-prices.js';
import type { Analysis } from './analyze.js';
import type { Base } from './choose-view.js';

// Planning by cost on the request path (docs/design.md rule 14), only for models with `pricing`: the pure
// cost model (compaction/cost.ts) chooses this conversation's lines, which the planner then uses
// in place of the configured ratios, and weighs the cut the planner made. Without prices the
// configured ratios stand and nothing here runs.

export interface CostPlanning {
  /** The compaction config with the lines the cost model chose (ratios of the budget). */
  compaction: CompactionConfig;
  lines: CostLines;
  /** The window's line (the configured trigger): above it a cut is made whatever it costs. */
  window: number;
  model: CostModel;
  growth: number;
  calls: number;
  /** No cut of this conversation is stored yet: its first must pay back on the call in hand (cost.ts). */
  first: boolean;
}

/** Whether a cut would be the conversation's first: no checkpoint stored and no summary of recap's sent back. */
export function isFirstCut(record: ConversationRecord | null, a: Pick<Analysis<unknown>, 'clientSummary'>): boolean {
  return (record === null || record.checkpoints.length === 0) && a.clientSummary === null;
}

export function costModelOf(models: ModelConfig[], model: ModelConfig): CostModel | null {
  const prices = modelPrices(model);
  if (!prices) return null;
  const summarizer = model.compaction.strategy === 'summarize' ? (summarizerPrices(models, model) ?? null) : null;
  return { prices, summarizer, sharedPrefix: summarizer !== null && model.compaction.summarizer?.shared_prefix === true };
}

/**
 * The lines for this request, or null when the model has no prices. `first` (isFirstCut) puts a
 * conversation's first cut at the window unless it pays back on the call in hand; before its
 * record is read, `false` gives the lowest lines a request may be planned by.
 */
export function costPlanning<T>(models: ModelConfig[], model: ModelConfig, a: Analysis<T>, budget: number, first: boolean): CostPlanning | null {
  const m = costModelOf(models, model);
  if (!m) return null;
  const c = model.compaction;
  const { growth, calls } = conversationGrowth(a.layout);
  const window = c.trigger_ratio * budget;
  const lines = costLines(m, {
    window,
    floor: c.cost.view_ratio * budget,
    target: c.target_ratio * budget,
    stable: a.layout.fixedTokens,
    summaryTokens: c.summary_max_tokens,
    growth,
    calls,
    first,
    minGap: c.cost.min_gap_ratio * budget,
  });
  // Background preparation keeps its place between the target and the trigger.
  const prepareShare = c.trigger_ratio > c.target_ratio ? (c.prepare_ratio - c.target_ratio) / (c.trigger_ratio - c.target_ratio) : 1;
  const prepare = lines.target + Math.max(0, Math.min(1, prepareShare)) * (lines.trigger - lines.target);
  const compaction = { ...c, trigger_ratio: lines.trigger / budget, target_ratio: lines.target / budget, prepare_ratio: prepare / budget };
  return { compaction, lines, window, model: m, growth, calls, first };
}

/** The lowest trigger cost planning can choose for a model, as a share of the budget: what a request must stay under to go upstream before it is counted. */
export function lowestTriggerRatio(model: ModelConfig): number {
  const c = model.compaction;
  if (!model.pricing) return c.trigger_ratio;
  return Math.min(c.trigger_ratio, Math.min(c.cost.view_ratio, c.target_ratio) + c.cost.min_gap_ratio);
}

/** Weighs a cut the planner made from `from` (a view of `view` tokens): a summary, or a clearing alone. */
export function weighCut<T>(p: CostPlanning, a: Analysis<T>, from: Base, view: number, cut: Cut, summarizes: boolean, summaryMaxTokens: number): CompactionFigures {
  const l = a.layout;
  const baseSummary = a.summaryTokens(from.summary);
  let evicted = baseSummary;
  for (const i of cut.evicted) evicted += l.tokens[i]!;
  // A new summary changes the view right after the pinned block; a clearing from its first newly cleared result.
  let unchanged = l.fixedTokens;
  if (!summarizes) {
    const first = cut.cleared.find((i) => !from.cleared.has(i)) ?? l.tokens.length;
    unchanged += baseSummary;
    for (const i of from.kept) unchanged += l.tokens[i]!;
    for (let i = from.covered; i < first; i++) unchanged += from.cleared.has(i) ? l.stubTokens(i) : l.tokens[i]!;
  }
  const model = summarizes ? p.model : { ...p.model, summarizer: null };
  return weighCompaction(model, {
    view,
    after: cut.tokens,
    unchanged,
    evicted: summarizes ? evicted : 0,
    summaryTokens: summarizes ? summaryMaxTokens : 0,
    window: p.window,
    growth: p.growth,
    calls: p.calls,
    first: p.first,
  });
}
