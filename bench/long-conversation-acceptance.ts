import type { VariantMeasures } from './conversation-measure.js';
import type { VariantName } from './long-conversation-variants.js';

// The figures the long-conversation bench exists to check (docs/design.md rules 4, 9, 10; issue 17), each
// with the value it saw, so a failing run says what is off and by how much.

export interface Check {
  check: string;
  value: string;
  pass: boolean;
}

export function acceptance(results: Record<VariantName, VariantMeasures>): Check[] {
  const bg = results['summarize-background'];
  const inline = results['summarize-inline'];
  const naive = results['naive-baseline'];
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return [
    {
      check: '(a) no turn waits on a summarizer after the first compaction',
      value: `${bg.summarizerWaitsAfterFirstCompaction.count} waits after turn ${String(bg.firstCompactionTurn)} (max ${String(bg.summarizerWaitsAfterFirstCompaction.max ?? 0)} ms)`,
      pass: bg.firstCompactionTurn !== null && bg.summarizerWaitsAfterFirstCompaction.count === 0,
    },
    {
      check: '(a) no request upstream exceeds the budget',
      value: `max ${bg.maxUpstreamTokens} of ${bg.budget}; ${bg.requestsOverBudget} over`,
      pass: bg.requestsOverBudget === 0,
    },
    {
      check: '(a) summarizer calls <= inline-only calls + 1 (background preparation costs no more)',
      value: `${bg.summarizerCalls} vs ${inline.summarizerCalls} inline-only (limit ${inline.summarizerCalls + 1})`,
      pass: bg.summarizerCalls <= inline.summarizerCalls + 1,
    },
    {
      check: '(a) no two summarizer calls build on the same summary',
      value: `${bg.callsSharingABase} calls sharing a base, ${bg.callsNotOnThePrevious} not on the previous call's summary`,
      pass: bg.callsSharingABase === 0,
    },
    {
      check: '(a) summarizer calls <= 1/4 of the naive baseline',
      value: `${bg.summarizerCalls} vs ${naive.summarizerCalls} (limit ${Math.floor(naive.summarizerCalls / 4)})`,
      pass: bg.summarizerCalls * 4 <= naive.summarizerCalls,
    },
    {
      check: '(a) cache-friendly turns >= 85%',
      value: `${bg.cacheFriendlyTurns}/${bg.turns - 1} = ${pct(bg.cacheFriendlyShare)}`,
      pass: bg.cacheFriendlyShare >= 0.85,
    },
  ];
}
