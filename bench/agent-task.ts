import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { acceptance } from './agent-task-acceptance.js';
import type { Fidelity } from './agent-task-fidelity.js';
import type { Shape } from './agent-task-shape.js';
import {
  BUDGET,
  CONTEXT_WINDOW,
  MAIN_LATENCY_MS,
  MAX_OUTPUT_TOKENS,
  REMINDER_AFTER_STEP,
  SEED,
  STEPS,
  SUMMARIZER_LATENCY_MS,
  TOOLS_TOKENS,
  VARIANTS,
  type Variant,
  type VariantName,
  variantNamed,
  WAIT_THRESHOLD_MS,
} from './agent-task-variants.js';
import { type Measured, type VariantMeasures, WAITS_DEFINITION } from './conversation-measure.js';
import { renderChart } from './tokens-chart.js';
import { runInChild } from './variant-process.js';

// One agent task (one user message) and 300 tool steps through the official SDK, on a 32k model,
// kept under budget five ways: recap's default (clearing, then summaries prepared in the
// background), the same inline only, clearing without a summarizer, summaries without clearing,
// and the naive re-summarize-when-over-budget of the reference libraries. The variants run at the
// same time, each in its own process: the run is mostly simulated latency.
// Run: npm run bench -- agent-task   (or npx tsx bench/agent-task.ts)
// AGENT_TASK_VARIANTS=default (names, comma-separated) runs only those variants, one after another
// so that none takes CPU from another: their rows are printed and nothing is written (the checks
// and the results file need all five). recap's own time per request (own_p50_ms) is read this way.

const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = join(HERE, 'results', 'agent-task.json');
const CHART_FILE = join(HERE, '..', 'docs', 'agent-task.svg');
const CHILD = join(HERE, 'agent-task-child.ts');
/** A variant still running after this is stuck, not slow: the naive one needs ~9 minutes. */
const CHILD_TIMEOUT_MS = 20 * 60_000;

type VariantResult = Measured & { shape: Shape; fidelity: Fidelity };

function row(variant: Variant, m: VariantMeasures, f: Fidelity) {
  return {
    variant: variant.label,
    requests: m.turns,
    summarizer_calls: m.summarizerCalls,
    inline_calls: m.summarizerCallsByMode.inline ?? 0,
    background_calls: m.summarizerCallsByMode.background ?? 0,
    calls_sharing_a_base: m.callsSharingABase,
    summarizer_waits: m.summarizerWaits.count,
    waits_after_warm_up: m.summarizerWaitsAfterFirstCompaction.count,
    wait_p50_ms: m.summarizerWaits.p50,
    wait_max_ms: m.summarizerWaits.max,
    slow_requests: m.slowTurns.count,
    own_p50_ms: m.recapOwn.p50,
    own_p95_ms: m.recapOwn.p95,
    own_before_forward_p50_ms: m.recapBeforeForward.p50,
    seen_items_kb: Math.round(m.seenItems.bytes / 1024),
    max_upstream_tokens: m.maxUpstreamTokens,
    budget: m.budget,
    over_budget: m.requestsOverBudget,
    cache_friendly: `${(m.cacheFriendlyShare * 100).toFixed(1)}%`,
    cost_tokens: m.cost.total,
    user_identifiers_kept: `${f.userIdentifiersKept}/${f.userIdentifiers}`,
    first_third_paths_kept: `${f.firstThirdPathsKept}/${f.firstThirdPaths}`,
    paths_only_in_summary: f.firstThirdPathsOnlyInSummary,
  };
}

/** Runs the named variants alone, in turn, and prints their rows. */
async function runSomeVariants(names: readonly string[]): Promise<Record<string, unknown>> {
  const rows = [];
  for (const name of names) {
    const variant = variantNamed(name);
    const { measures, fidelity } = await runInChild<VariantResult>(CHILD, [variant.name], CHILD_TIMEOUT_MS);
    rows.push({ ...row(variant, measures, fidelity), load_average: loadavg()[0]!.toFixed(1) });
  }
  console.table(rows);
  return { bench: 'agent-task', node: process.version, rows };
}

export async function runAgentTaskBench(): Promise<Record<string, unknown>> {
  const only = process.env.AGENT_TASK_VARIANTS?.split(',').filter((name) => name !== '');
  if (only !== undefined && only.length > 0) return runSomeVariants(only);
  const measured = await Promise.all(VARIANTS.map((v) => runInChild<VariantResult>(CHILD, [v.name], CHILD_TIMEOUT_MS)));
  const byName = Object.fromEntries(VARIANTS.map((v, i) => [v.name, measured[i]!.measures])) as Record<VariantName, VariantMeasures>;
  const shapes = Object.fromEntries(VARIANTS.map((v, i) => [v.name, measured[i]!.shape])) as Record<VariantName, Shape>;
  const fidelity = Object.fromEntries(VARIANTS.map((v, i) => [v.name, measured[i]!.fidelity])) as Record<VariantName, Fidelity>;
  const checks = acceptance(byName, shapes);
  const result = {
    bench: 'agent-task',
    node: process.version,
    setup: {
      steps: STEPS,
      requests: STEPS + 1,
      seed: SEED,
      context_window: CONTEXT_WINDOW,
      max_output_tokens: MAX_OUTPUT_TOKENS,
      tools_tokens: TOOLS_TOKENS,
      budget: BUDGET,
      main_latency_ms: MAIN_LATENCY_MS,
      summarizer_latency_ms: SUMMARIZER_LATENCY_MS,
      wait_threshold_ms: WAIT_THRESHOLD_MS,
      client:
        'official openai SDK as an agent harness uses it, no think time: a system prompt and one task message, then per step the ' +
        "model's reply (1 tool call in 60% of steps, 2 parallel in 25%, 3 in 15%) appended as returned and the tool results " +
        `(1-8 KB each: files, search hits, test runs, logs, listings, with identifiers), 5 tools defined; a developer reminder after step ${REMINDER_AFTER_STEP}; ` +
        'request 301 gets the final text answer',
      waits: WAITS_DEFINITION,
      warm_up: "the requests up to the first one whose forwarded prompt is smaller than the client's",
      bases:
        "each summarizer call's previous summary (the <previous_summary> block of its input) matched against the replies of the " +
        'calls before it: calls sharing a base summarized from the same summary twice',
      cache_friendly: "share of requests whose upstream prompt starts with the previous request's whole upstream prompt",
      token_counts: 'o200k_base over what the fake upstream received (messages; the budget already excludes the tools), independently of recap headers',
      cost: 'prompt tokens sent upstream + summarizer input and output tokens',
      own: "recap's own time per request: its request log's durationMs minus upstreamHeadersMs (the upstream's time from forwarding to the reply's headers); own_before_forward: its forwardedMs, the part before the request went upstream",
      seen_items: "what recap's cache of seen items (tokens.memo_max_bytes) held at the end of the run, estimated KiB",
      fidelity:
        'on the last request the upstream received: the identifiers the task and the reminder stated (as the ledger finds them) still there; ' +
        'the paths the tool calls of the first third of the steps named still there, and how many of those only the summary carries (no kept step names them)',
    },
    rows: VARIANTS.map((v) => row(v, byName[v.name], fidelity[v.name])),
    variants: VARIANTS.map((v) => ({ name: v.name, label: v.label, setup: v.setup, shape: shapes[v.name], fidelity: fidelity[v.name], ...byName[v.name] })),
    acceptance: checks,
  };
  await mkdir(dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
  const chosen = measured[VARIANTS.findIndex((v) => v.name === 'default')]!;
  await mkdir(dirname(CHART_FILE), { recursive: true });
  await writeFile(CHART_FILE, renderChart(chosen.points, BUDGET, `recap default on one agent task: ${STEPS} tool steps, ${CONTEXT_WINDOW / 1024}k context`, 'request'));
  console.table(result.rows);
  console.table(checks);
  console.log(`written to ${RESULTS_FILE} and ${CHART_FILE}`);
  return result;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runAgentTaskBench();
}
