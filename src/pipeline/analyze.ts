import type { NeutralItem } from '../compaction/items.js';
import type { BaseView, Layout } from '../compaction/layout.js';
import type { SummaryCodec } from '../compaction/summary-message.js';
import { extendSegmentationSteps, type Segmentation, segmentSteps } from '../compaction/units.js';
import { hashChain } from '../conversation/canonical.js';
import { runSync, STEP_EVERY, type Steps } from '../slicing/slicer.js';
import type { WireItems } from '../wire/format.js';
import type { AnalysisMemos, Memo } from './analysis-memo.js';
import { PROJECTED_SUMMARY } from './projected-summary.js';

/** Summary items a conversation's requests share before the map starts afresh (analysis-memo.ts). */
const MAX_SUMMARY_ITEMS = 8;

// A request taken apart for compaction: the pinned block, the rest with its token counts and
// hash-chain links, its units (rules 1, 2) and the costs of the views recap can build (layout).

export interface Analysis<T> {
  items: readonly T[];
  wire: WireItems<T>;
  seg: Segmentation;
  /** The pinned block without a sent-back summary: what stays first, untouched. */
  pinned: T[];
  /** Items after the pinned block. */
  rest: readonly T[];
  layout: Layout;
  /** Hash-chain links of `rest`; computed on first use (a request far below its budget never needs them). */
  readonly links: string[];
  /** The same links worked out in steps (the request path's way: 100k items hash for ~100 ms). */
  linksSteps(): Steps<string[]>;
  /** recap's own summary, sent back by the client inside its pinned block, if any. */
  clientSummary: string | null;
  summaryTokens(text: string | null): number;
  codec: SummaryCodec;
  /** Rest item i as recap shows it once cleared. */
  clearedItem(i: number): T;
  /** recap's summary item carrying `text`: the same object for the same text across the conversation's requests (its count and bytes kept). */
  summaryItem(text: string): T;
  /** Tokens of every item of the request, the pinned block's included (the view map of its event). */
  itemTokens: readonly number[];
  /** The request offers recap_recall (its stubs say so). */
  recall: boolean;
  /** The neutral descriptions of `rest`. */
  restNeutral: readonly NeutralItem[];
  /** This request's memo, and the conversation's previous one when this request started with all of its items. */
  memo: Memo;
  prior: Memo | undefined;
}

export interface AnalysisInput<T> {
  items: readonly T[];
  /** Token counts of every item, aligned with `items` (calibrated). */
  tokens: readonly number[];
  /** Canonical hashes of every item, aligned with `items`. */
  hashes: readonly string[];
  primingTokens: number;
  countItem(item: T): number;
  wire: WireItems<T>;
  codec: SummaryCodec;
  /** The request offers recap_recall: stubs say their content can be recalled (rule 13). */
  recall?: boolean;
  /** Audit mode: a projected summary (PROJECTED_SUMMARY) counts as this many tokens of text. */
  projectedSummaryTokens?: number;
  /** Where the conversation's previous analysis is kept (`key`), and the size of this request's body. */
  memo?: { memos: AnalysisMemos; key: string; bytes: number };
}

export function analyze<T>(input: AnalysisInput<T>): Analysis<T> {
  return runSync(analyzeSteps(input));
}

export function* analyzeSteps<T>(input: AnalysisInput<T>): Steps<Analysis<T>> {
  const { items, wire, codec } = input;
  // What the conversation's previous request worked out, when this one starts with its items.
  const prior = input.memo?.memos.prior(input.memo.key, items as readonly object[]);
  const neutral: NeutralItem[] = prior ? prior.neutral.slice() : [];
  let work = 0;
  for (let i = neutral.length; i < items.length; i++) {
    const described = wire.describe(items[i]!);
    neutral.push(described);
    // Counted in items and calls: one message may carry 200k parallel calls.
    work += 1 + described.calls.length;
    if (work >= STEP_EVERY) {
      work = 0;
      yield;
    }
  }
  const ownSummary = (i: number) => {
    const text = wire.sealedTextOf(items[i]!);
    return text !== null && codec.unseal(text) !== null;
  };
  const seg = (prior && (yield* extendSegmentationSteps(prior.seg, prior.items.length, neutral, ownSummary))) || (yield* segmentSteps(neutral, ownSummary));
  // The prior links stand for this request's first ones while the pinned block is the same.
  const priorLinks = prior?.seg.pinnedCount === seg.pinnedCount ? prior.links : undefined;
  const recall = input.recall ?? false;
  // A conversation has a few summaries at a time; past this many the map starts afresh.
  const summaryItems = prior?.recall === recall && prior.summaryItems.size < MAX_SUMMARY_ITEMS ? prior.summaryItems : new Map<string, object>();
  const memo: Memo = { items: items as readonly object[], neutral, tokens: input.tokens, seg, summaryItems, recall };
  if (input.memo) input.memo.memos.remember(input.memo.key, memo, input.memo.bytes);
  const pinned = items.slice(0, seg.pinnedCount).filter((_, i) => i !== seg.summaryIndex);
  let pinnedTokens = 0;
  for (let i = 0; i < seg.pinnedCount; i++) if (i !== seg.summaryIndex) pinnedTokens += input.tokens[i]!;
  const rest = items.slice(seg.pinnedCount);
  const restTokens = input.tokens.slice(seg.pinnedCount);
  const restNeutral = neutral.slice(seg.pinnedCount);

  let toolNames: Map<string, string> | undefined;
  const toolNameOf = (i: number): string | null => {
    if (!toolNames) {
      // The last call of an id names it, as a map made of all calls in order would.
      toolNames = new Map();
      for (const n of restNeutral) for (const c of n.calls) toolNames.set(c.id, c.name);
    }
    const id = restNeutral[i]!.resultOf;
    return id === null ? null : (toolNames.get(id) ?? null);
  };
  const cleared = new Map<number, T>();
  const clearedItem = (i: number): T => {
    let item = cleared.get(i);
    if (item === undefined) {
      item = wire.cleared(rest[i]!, toolNameOf(i), input.recall ?? false);
      cleared.set(i, item);
    }
    return item;
  };
  const stubTokens = new Map<number, number>();
  const layout: Layout = {
    seg,
    tokens: restTokens,
    fixedTokens: pinnedTokens + input.primingTokens,
    stubTokens(i) {
      let tokens = stubTokens.get(i);
      if (tokens === undefined) {
        tokens = input.countItem(clearedItem(i));
        stubTokens.set(i, tokens);
      }
      return tokens;
    },
  };
  const summaryItem = (text: string): T => {
    let item = summaryItems.get(text) as T | undefined;
    if (item === undefined) {
      item = wire.summaryItem(codec.seal(text));
      summaryItems.set(text, item as object);
    }
    return item;
  };
  const summaryTokenCache = new Map<string, number>();
  let links: string[] | undefined;
  const sent = seg.summaryIndex === null ? null : wire.sealedTextOf(items[seg.summaryIndex]!);
  return {
    items,
    wire,
    seg,
    pinned,
    rest,
    layout,
    itemTokens: input.tokens,
    recall,
    restNeutral,
    memo,
    prior,
    get links() {
      links ??= runSync(this.linksSteps());
      return links;
    },
    *linksSteps() {
      if (links) return links;
      const hashes = input.hashes.slice(seg.pinnedCount);
      const chain = priorLinks ? priorLinks.slice() : [];
      for (let i = chain.length; i < hashes.length; i += STEP_EVERY) {
        chain.push(...hashChain(hashes.slice(i, i + STEP_EVERY), chain.at(-1) ?? '', (rest as object[]).slice(i, i + STEP_EVERY)));
        yield;
      }
      links = chain;
      memo.links = chain;
      return links;
    },
    clientSummary: sent === null ? null : codec.unseal(sent),
    summaryTokens(text) {
      if (!text) return 0;
      let tokens = summaryTokenCache.get(text);
      if (tokens === undefined) {
        const projected = text === PROJECTED_SUMMARY && input.projectedSummaryTokens !== undefined;
        tokens = projected ? input.countItem(summaryItem('')) + input.projectedSummaryTokens! : input.countItem(summaryItem(text));
        summaryTokenCache.set(text, tokens);
      }
      return tokens;
    },
    codec,
    summaryItem,
    clearedItem,
  };
}

/** What goes upstream for a view: pinned, the summary (if any), what it keeps verbatim, then the rest from `covered`, cleared ones as stubs. */
export function buildView<T>(a: Analysis<T>, summary: string | null, view: Omit<BaseView, 'summaryTokens'>): T[] {
  const out = [...a.pinned];
  if (summary) out.push(a.summaryItem(summary));
  for (const i of view.kept) out.push(a.rest[i]!);
  for (let i = view.covered; i < a.rest.length; i++) out.push(view.cleared.has(i) ? a.clearedItem(i) : a.rest[i]!);
  return out;
}
