import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/config/config.js';
import { startFakeUpstream } from '../src/dev/fake-upstream.js';
import type { RecallCost } from '../src/eval/report.js';
import { reportJson } from '../src/eval/report.js';
import { runEval } from '../src/eval/run.js';
import { agentScript, REMINDER, SYSTEM_PROMPT, TASK, TOOLS } from './agent-task-script.js';
import { CONTEXT_WINDOW, MAIN_LATENCY_MS, MAX_OUTPUT_TOKENS, MODEL, REMINDER_AFTER_STEP, SEED, STEPS, SUMMARIZER_MODEL } from './agent-task-variants.js';
import type { BenchMessage } from './bench-recap.js';

// What the model can still recall halfway through the agent task, through recap's view with and
// without recap_recall, against the full history: `recap eval` on the task's history after 150
// steps (as the harness sends it at the next request: ~400k tokens; recap compacts it in one go,
// clearing and summarizing, as a request that finds no checkpoint does) with recap's defaults on the 32k model,
// the fake upstream answering probes from what it is sent (and calling recap_recall when its
// prompt lacks a probe's cue), at the main model's simulated latency, so that a recall's time is
// a hop's. The full history does not fit 32k: the fake, which has no window, is asked it anyway.

const PROBES = 24;
/** Halfway: a whole 300-step history takes recap two minutes to compact in one request (no checkpoint to start from). */
const AT_STEP = 150;

/** The history of the task after `steps` steps: every step's reply and its results, the reminder after its step. */
export function taskHistory(steps: number): BenchMessage[] {
  const history: BenchMessage[] = [{ role: 'system', content: SYSTEM_PROMPT }, TASK];
  agentScript(SEED, STEPS)
    .slice(0, steps)
    .forEach((step, i) => {
      history.push({
        role: 'assistant',
        content: step.note,
        tool_calls: step.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      });
      for (const call of step.calls) history.push({ role: 'tool', tool_call_id: call.id, content: call.result });
      if (i + 1 === REMINDER_AFTER_STEP) history.push(REMINDER);
    });
  return history;
}

export async function agentTaskRecall(): Promise<Record<string, unknown>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'recap-agent-recall-'));
  const file = join(dir, 'agent-task.json');
  await writeFile(file, JSON.stringify({ model: MODEL, messages: taskHistory(AT_STEP), tools: TOOLS }));
  const rows: Record<string, unknown>[] = [];
  try {
    for (const lossy of [false, true]) {
      const fake = await startFakeUpstream({ summarizerModel: SUMMARIZER_MODEL, lossySummarizer: lossy, latencyMs: MAIN_LATENCY_MS, summarizerLatencyMs: 0 });
      try {
        const config = parseConfig(
          JSON.stringify({
            upstreams: { fake: { base_url: fake.url } },
            models: [
              {
                match: MODEL,
                upstream: 'fake',
                context_window: CONTEXT_WINDOW,
                max_output_tokens: MAX_OUTPUT_TOKENS,
                compaction: { strategy: 'summarize', summarizer: { model: SUMMARIZER_MODEL } },
              },
            ],
          }),
          'agent-task-recall.json',
          {},
        );
        const r = reportJson(await runEval({ file, config, maxProbes: PROBES, fullContextWindow: Number.MAX_SAFE_INTEGER }));
        rows.push({ summarizer: lossy ? 'lossy' : 'extractive', ...r, results: undefined });
      } finally {
        await fake.close();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

const pct = (x: unknown) => (typeof x === 'number' ? `${Math.round(x * 100)}%` : 'n/a');

/** `npm run bench -- agent-task-recall`: the table, and bench/results/agent-task-recall.json. */
export async function runAgentTaskRecallBench(): Promise<void> {
  const rows = await agentTaskRecall();
  const lines = [
    '| summarizer (fake) | probes | recall, compacted view | with recap_recall | full history | recall calls (probes) | hops per probe | extra upstream tokens per recall | extra ms per recall | tokens compacted / full |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const c = r.recall_hops as RecallCost | null;
    lines.push(
      `| ${r.summarizer} | ${r.probes} | ${pct(r.recall_compacted)} | ${pct(r.recall_with_recall)} | ${pct(r.recall_full)} | ${c ? `${c.calls} (${c.probes_recalling})` : '–'} | ${c?.hops_per_probe ?? '–'} | ${c?.extra_upstream_tokens_per_recall ?? '–'} | ${c?.extra_ms_per_recall ?? '–'} | ${r.tokens_compacted} / ${r.tokens_full} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  const out = join(import.meta.dirname, 'results', 'agent-task-recall.json');
  await writeFile(
    out,
    `${JSON.stringify({ bench: 'agent-task-recall', node: process.version, steps: AT_STEP, of_steps: STEPS, probes: PROBES, main_latency_ms: MAIN_LATENCY_MS, rows }, null, 2)}\n`,
  );
}
