import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { acceptance } from './long-conversation-acceptance.js';
import { type Measured, type VariantMeasures, WAITS_DEFINITION } from './conversation-measure.js';
import {
  BUDGET,
  CONTEXT_WINDOW,
  MAIN_LATENCY_MS,
  MAX_OUTPUT_TOKENS,
  SEED,
  SUMMARIZER_LATENCY_MS,
  TURNS,
  VARIANTS,
  type Variant,
  type VariantName,
  WAIT_THRESHOLD_MS,
} from './long-conversation-variants.js';
import { renderChart } from './tokens-chart.js';
import { runInChild } from './variant-process.js';

// A 300-turn conversation with large tool results, on a 32k model, kept under budget four ways:
// recap summarizing in the background (the default), recap summarizing inline only, recap's
// `window` strategy, and the naive re-summarize-when-over-budget of the reference libraries. The
// variants run at the same time, each in its own process: the run is mostly simulated latency.
// Run: npm run bench -- long-conversation   (or npx tsx bench/long-conversation.ts)

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(HERE, 'results', 'long-conversation.json');
const CHART_FILE = join(HERE, '..', 'docs', 'long-conversation.svg');
const CHILD = join(HERE, 'long-conversation-child.ts');
/** A variant still running after this is stuck, not slow: the naive one needs ~4 minutes. */
const CHILD_TIMEOUT_MS = 9 * 60_000;

function runVariant(variant: Variant): Promise<Measured> {
  return runInChild<Measured>(CHILD, [variant.name], CHILD_TIMEOUT_MS);
}

function row(variant: Variant, m: VariantMeasures) {
  return {
    variant: variant.label,
    turns: m.turns,
    summarizer_calls: m.summarizerCalls,
    inline_calls: m.summarizerCallsByMode.inline ?? 0,
    background_calls: m.summarizerCallsByMode.background ?? 0,
    calls_sharing_a_base: m.callsSharingABase,
    compacted_turns: m.actions.compacted ?? 0,
    summarizer_waits: m.summarizerWaits.count,
    waits_after_warm_up: m.summarizerWaitsAfterFirstCompaction.count,
    wait_p50_ms: m.summarizerWaits.p50,
    wait_p99_ms: m.summarizerWaits.p99,
    wait_max_ms: m.summarizerWaits.max,
    slow_turns: m.slowTurns.count,
    max_upstream_tokens: m.maxUpstreamTokens,
    budget: m.budget,
    over_budget: m.requestsOverBudget,
    cache_friendly: `${(m.cacheFriendlyShare * 100).toFixed(1)}%`,
    cost_tokens: m.cost.total,
  };
}

export async function runLongConversationBench(): Promise<Record<string, unknown>> {
  const measured = await Promise.all(VARIANTS.map(runVariant));
  const byName = Object.fromEntries(VARIANTS.map((v, i) => [v.name, measured[i]!.measures])) as Record<VariantName, VariantMeasures>;
  const checks = acceptance(byName);
  const result = {
    bench: 'long-conversation',
    node: process.version,
    setup: {
      turns: TURNS,
      seed: SEED,
      context_window: CONTEXT_WINDOW,
      max_output_tokens: MAX_OUTPUT_TOKENS,
      budget: BUDGET,
      main_latency_ms: MAIN_LATENCY_MS,
      summarizer_latency_ms: SUMMARIZER_LATENCY_MS,
      wait_threshold_ms: WAIT_THRESHOLD_MS,
      waits: WAITS_DEFINITION,
      warm_up: "the turns up to the first one whose forwarded prompt is smaller than the client's",
      bases:
        "each summarizer call's previous summary (the <previous_summary> block of its input) matched against the replies of the " +
        'calls before it: calls sharing a base summarized from the same summary twice',
      client: 'official openai SDK, no think time; a tool call with a 1-4 KB JSON result every 2-4 turns',
      token_counts: 'o200k_base over what the fake upstream received, independently of recap headers',
      cost: 'prompt tokens sent upstream + summarizer input and output tokens',
    },
    rows: VARIANTS.map((v) => row(v, byName[v.name])),
    variants: VARIANTS.map((v) => ({ name: v.name, label: v.label, setup: v.setup, ...byName[v.name] })),
    acceptance: checks,
  };
  await mkdir(dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
  const background = measured[VARIANTS.findIndex((v) => v.name === 'summarize-background')]!;
  await mkdir(dirname(CHART_FILE), { recursive: true });
  await writeFile(CHART_FILE, renderChart(background.points, BUDGET, `recap, summarize with background preparation: ${TURNS} turns, ${CONTEXT_WINDOW / 1024}k context`));
  console.table(result.rows);
  console.table(checks);
  console.log(`written to ${RESULTS_FILE} and ${CHART_FILE}`);
  return result;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runLongConversationBench();
}
