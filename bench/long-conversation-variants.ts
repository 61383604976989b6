import type { BenchVariant } from './variant-process.js';

// The long-conversation benchmark's setup: one conversation, one model, four ways to keep it under
// budget. Everything a variant needs to boot its own fake upstream and recap is plain data here,
// so a child process can rebuild it from the variant's name alone.

export const TURNS = 300;
export const SEED = 20240501;
export const MODEL = 'gpt-bench-32k';
export const SUMMARIZER_MODEL = 'gpt-bench-summarizer';
export const CONTEXT_WINDOW = 32_768;
export const MAX_OUTPUT_TOKENS = 4_096;
/** docs/design.md rule 3 for a request without tools or max_tokens: context window minus output reservation. */
export const BUDGET = CONTEXT_WINDOW - MAX_OUTPUT_TOKENS;
export const MAIN_LATENCY_MS = 200;
export const SUMMARIZER_LATENCY_MS = 1_500;
/** recap "waited" on a turn when more than this passed between the client's send and the upstream's receipt. */
export const WAIT_THRESHOLD_MS = 50;

export type VariantName = 'summarize-background' | 'summarize-inline' | 'window' | 'naive-baseline';

export type Variant = BenchVariant<VariantName>;

const summarizer = { model: SUMMARIZER_MODEL };

export const VARIANTS: readonly Variant[] = [
  {
    name: 'summarize-background',
    label: '(a) summarize, background on',
    setup: 'recap defaults: strategy summarize, trigger 1.0, target 0.6, prepare 0.8, tool-result clearing on (keep_last_steps 3, min_tokens 256), background enabled',
    compaction: { strategy: 'summarize', summarizer },
    backgroundEnabled: true,
  },
  {
    name: 'summarize-inline',
    label: '(b) summarize, inline only',
    setup: 'recap defaults (tool-result clearing on) with background.enabled false: every summary is made on the request path',
    compaction: { strategy: 'summarize', summarizer },
    backgroundEnabled: false,
  },
  {
    name: 'window',
    label: '(c) window',
    setup: 'strategy window (oldest rounds and steps dropped, no summary; tool-result clearing is off by default for window), trigger 1.0, target 0.6',
    compaction: { strategy: 'window' },
    backgroundEnabled: false,
  },
  {
    name: 'naive-baseline',
    label: '(d) naive re-summarize',
    setup:
      'emulates molo SummarizeStrategy / ds-api LlmSummarizer (re-summarize whenever the prompt is over budget, keep as many ' +
      'recent rounds as fit in budget minus the summary reservation) as recap with strategy summarize, trigger_ratio 1.0, ' +
      'target_ratio 0.9999 (the schema needs target < trigger), clear_tool_results.enabled false (neither library clears ' +
      'tool results), background.enabled false',
    compaction: { strategy: 'summarize', summarizer, trigger_ratio: 1.0, target_ratio: 0.9999, clear_tool_results: { enabled: false } },
    backgroundEnabled: false,
  },
];

export function variantNamed(name: string): Variant {
  const variant = VARIANTS.find((v) => v.name === name);
  if (!variant) throw new Error(`unknown long-conversation variant "${name}"`);
  return variant;
}
