import type { Shape } from './agent-task-shape.js';
import { TOOLS_TOKENS, type VariantName } from './agent-task-variants.js';
import type { VariantMeasures } from './conversation-measure.js';
import type { Check } from './long-conversation-acceptance.js';

// What the agent-task bench exists to check (issues 16 and 17, docs/design.md rules 1, 2, 9, 10, 11), each
// with the value it saw, so a failing run says what is off and by how much.

export function acceptance(results: Record<VariantName, VariantMeasures>, shapes: Record<VariantName, Shape>): Check[] {
  const d = results.default;
  const inline = results['default-inline'];
  const summarizeOnly = results['summarize-only'];
  const broken = Object.entries(shapes).flatMap(([name, s]) =>
    Object.entries(s.violations)
      .filter(([, n]) => n > 0)
      .map(([what, n]) => `${name}: ${what} ${n}`),
  );
  return [
    {
      check: '(a) no request waits on a summarizer after the first compaction',
      value: `${d.summarizerWaitsAfterFirstCompaction.count} waits after request ${String(d.firstCompactionTurn)} (max ${String(d.summarizerWaitsAfterFirstCompaction.max ?? 0)} ms)`,
      pass: d.firstCompactionTurn !== null && d.summarizerWaitsAfterFirstCompaction.count === 0,
    },
    {
      check: '(a) no request upstream exceeds the budget',
      value: `max ${d.maxUpstreamTokens} of ${d.budget}; ${d.requestsOverBudget} over`,
      pass: d.requestsOverBudget === 0,
    },
    {
      // The header counts the tool definitions, as x-recap-tokens-out does: the messages' budget plus the tools.
      check: '(a) x-recap-budget equals the budget worked out here plus the tools (context - output reservation)',
      value: `recap ${d.budgetsByRecap.join(', ')}, here ${d.budget} + ${TOOLS_TOKENS}`,
      pass: d.budgetsByRecap.length === 1 && d.budgetsByRecap[0] === d.budget + TOOLS_TOKENS,
    },
    {
      check: "(a) summarizer calls <= (a') inline-only calls + 1 (background preparation costs no more)",
      value: `${d.summarizerCalls} vs ${inline.summarizerCalls} inline-only (limit ${inline.summarizerCalls + 1})`,
      pass: d.summarizerCalls <= inline.summarizerCalls + 1,
    },
    {
      check: '(a) no two summarizer calls build on the same summary',
      value: `${d.callsSharingABase} calls sharing a base, ${d.callsNotOnThePrevious} not on the previous call's summary`,
      pass: d.callsSharingABase === 0,
    },
    {
      check: '(a) clearing first: fewer summarizer calls than (c) summarize only',
      value: `${d.summarizerCalls} vs ${summarizeOnly.summarizerCalls}`,
      pass: d.summarizerCalls < summarizeOnly.summarizerCalls,
    },
    {
      check:
        'every variant: pinned prompt first, task verbatim after it or the summary, reminder kept, newest step verbatim, no call split from its result, one stub per cleared result',
      value: broken.length === 0 ? `0 violations in ${Object.values(shapes).reduce((n, s) => n + s.requests, 0)} requests` : broken.join('; '),
      pass: broken.length === 0,
    },
  ];
}
