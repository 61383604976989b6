import type { ChatRequest } from '../src/messages/types.js';
import { createTokenCounter } from '../src/tokens/counter.js';
import { SYSTEM_PROMPT, TOOLS } from './agent-task-script.js';
import type { BenchVariant } from './variant-process.js';

// The agent-task benchmark's setup: one task of 300 tool steps on a 32k model, kept under budget
// five ways. Everything a variant needs to boot its own fake upstream and recap is plain data
// here, so a child process can rebuild it from the variant's name alone.

export const STEPS = 300;
/** The developer message the harness adds after this step (a later instruction, rule 2). */
export const REMINDER_AFTER_STEP = 150;
export const SEED = 20240611;
export const MODEL = 'gpt-bench-agent-32k';
export const SUMMARIZER_MODEL = 'gpt-bench-summarizer';
export const CONTEXT_WINDOW = 32_768;
export const MAX_OUTPUT_TOKENS = 4_096;
/**
 * Tokens of the tools definitions every request carries (recap's tools counter, exact against the
 * API), with the system message they merge into as the API renders them.
 */
export const TOOLS_TOKENS = createTokenCounter({ encoding: 'o200k_base' }).countTools({
  model: MODEL,
  messages: [{ role: 'system', content: SYSTEM_PROMPT }],
  tools: TOOLS,
} as ChatRequest);
/** docs/design.md rule 3: context window minus output reservation minus the tools definitions. */
export const BUDGET = CONTEXT_WINDOW - MAX_OUTPUT_TOKENS - TOOLS_TOKENS;
export const MAIN_LATENCY_MS = 200;
export const SUMMARIZER_LATENCY_MS = 1_500;
export const WAIT_THRESHOLD_MS = 50;

export type VariantName = 'default' | 'default-inline' | 'clearing-only' | 'summarize-only' | 'naive-baseline';

export type Variant = BenchVariant<VariantName>;

const summarizer = { model: SUMMARIZER_MODEL };

export const VARIANTS: readonly Variant[] = [
  {
    name: 'default',
    label: '(a) recap default',
    setup:
      'recap defaults: strategy summarize, tool-result clearing on (keep_last_steps 3, min_tokens 256), keep_instructions on, ' +
      'trigger 1.0, target 0.6, prepare 0.8, background enabled',
    compaction: { strategy: 'summarize', summarizer },
    backgroundEnabled: true,
  },
  {
    name: 'default-inline',
    label: "(a') recap default, inline only",
    setup: 'the same as (a) with background.enabled false: every summary is made on the request path (the reference for "background costs no more calls")',
    compaction: { strategy: 'summarize', summarizer },
    backgroundEnabled: false,
  },
  {
    name: 'clearing-only',
    label: '(b) clearing only',
    setup:
      'no summarizer: strategy window with clear_tool_results.enabled true. Old tool results are cleared first; when clearing ' +
      'alone cannot bring the view to the target (300 steps of calls and stubs outgrow the budget), the oldest steps are ' +
      'dropped without a summary, as window does',
    compaction: { strategy: 'window', clear_tool_results: { enabled: true } },
    backgroundEnabled: false,
  },
  {
    name: 'summarize-only',
    label: '(c) summarize only',
    setup: 'recap defaults with clear_tool_results.enabled false: every reduction is a summary (background enabled)',
    compaction: { strategy: 'summarize', summarizer, clear_tool_results: { enabled: false } },
    backgroundEnabled: true,
  },
  {
    name: 'naive-baseline',
    label: '(d) naive re-summarize',
    setup:
      'emulates molo SummarizeStrategy / ds-api LlmSummarizer (re-summarize whenever the prompt is over budget, keep as much ' +
      'as fits in budget minus the summary reservation, no tool-result clearing) as recap with strategy summarize, ' +
      'trigger_ratio 1.0, target_ratio 0.9999 (the schema needs target < trigger), clear_tool_results.enabled false, ' +
      'background.enabled false',
    compaction: { strategy: 'summarize', summarizer, trigger_ratio: 1.0, target_ratio: 0.9999, clear_tool_results: { enabled: false } },
    backgroundEnabled: false,
  },
];

export function variantNamed(name: string): Variant {
  const variant = VARIANTS.find((v) => v.name === name);
  if (!variant) throw new Error(`unknown agent-task variant "${name}"`);
  return variant;
}
